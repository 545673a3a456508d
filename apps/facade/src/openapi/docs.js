// The reference page's own script (the page's CSP admits no inline code): Swagger UI renders
// /services/2/openapi.json into #reference.

// Swagger UI writes Markdown descriptions, which it has sanitised with DOMPurify, through innerHTML. The page
// requires Trusted Types, so this default policy admits that HTML, refusing anything that could run code.
const runnable = /<\s*(?:script|iframe|object|embed|base|form)\b|\son\w+\s*=|javascript:/i;
window.trustedTypes.createPolicy('default', {
  createHTML: (html) => (runnable.test(html) ? null : html),
});

window.SwaggerUIBundle({
  url: '/services/2/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  validatorUrl: null, // no badge from a third-party validator
});
