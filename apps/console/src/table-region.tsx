import type { ReactNode } from 'react';

/**
 * A wide table scrolls sideways on a phone: its region takes focus so a keyboard can scroll it (axe's
 * scrollable-region-focusable), and its label names it for screen readers.
 */
export function TableRegion({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to scroll by keyboard
    <section className="table" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
