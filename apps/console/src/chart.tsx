import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { AriaComponent, GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { type EChartsCoreOption, init, use } from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { useEffect, useRef } from 'react';

use([
  LineChart,
  BarChart,
  PieChart,
  GridComponent,
  LegendComponent,
  TooltipComponent,
  AriaComponent,
  CanvasRenderer,
]);

/**
 * An Apache ECharts chart. Its aria component describes the data to screen readers; the tooltip is drawn on
 * the canvas (richText), since ECharts' HTML tooltip writes markup, which the page's Trusted Types policy
 * (trusted-types.ts) refuses.
 */
export function Chart({ option, label }: { option: EChartsCoreOption; label: string }) {
  const element = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!element.current) return;
    const chart = init(element.current, undefined, { renderer: 'canvas' });
    chart.setOption({
      aria: { enabled: true },
      tooltip: { trigger: 'axis', renderMode: 'richText' },
      animation: false,
      ...option,
    });
    const resize = new ResizeObserver(() => chart.resize());
    resize.observe(element.current);
    return () => {
      resize.disconnect();
      chart.dispose();
    };
  }, [option]);
  return <div className="chart" ref={element} role="img" aria-label={label} />;
}
