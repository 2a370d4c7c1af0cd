/**
 * A bar chart drawn on the server as SVG: no script, readable by screen readers as one image
 * (role="img" with a title and a description naming what it shows and the total), scaled to the
 * page by its viewBox, coloured by the stylesheet's variables so dark mode follows.
 */
import { html } from 'hono/html';
import type { Html } from '../layout.ts';

/** One bar: its value and how the axis and a reader say it. */
interface Bar {
  readonly value: number;
  /** Under the bar (shown for a few bars only when there are many). */
  readonly axisLabel: string;
}

interface BarChart {
  /** Unique on the page: the ids of the title and description derive from it. */
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly bars: readonly Bar[];
  /** A value on the vertical axis as people read it (an amount, a count). */
  readonly axisValue: (value: number) => string;
  /** Whole units only (counts): gridlines never fall between them. */
  readonly integers?: boolean;
}

// Drawn about as wide as a phone's column, so its 13-unit text stays readable at 375 px.
const WIDTH = 360;
const HEIGHT = 210;
const RIGHT = 10;
const TOP = 12;
const BOTTOM = 30;
/** About how wide one character of the axis text is, in viewBox units. */
const CHAR = 7.6;
/** At most this many labels under the bars, so they never overlap. */
const MAX_LABELS = 5;

/** A round top for the axis: 1, 2, 2.5 or 5 times a power of ten, at least `max`. */
function niceTop(max: number, integers: boolean): number {
  if (max <= 0) return integers ? 4 : 1;
  const step = 10 ** Math.floor(Math.log10(max / 4));
  for (const m of [1, 2, 2.5, 5, 10]) {
    const top = m * step * 4;
    if (top >= max && (!integers || Number.isInteger(top / 4))) return top;
  }
  return Math.ceil(max);
}

const round = (n: number) => Math.round(n * 10) / 10;

/** The chart as an `<svg>` inside a `<figure class="chart">`. */
export function barChart(chart: BarChart): Html {
  const { bars } = chart;
  const top = niceTop(Math.max(0, ...bars.map((b) => b.value)), chart.integers ?? false);
  const ticks = [0, 1, 2, 3, 4].map((i) => (top * i) / 4);
  // The vertical axis is as wide as its longest amount.
  const left = Math.ceil(Math.max(...ticks.map((t) => chart.axisValue(t).length)) * CHAR) + 12;
  const plotWidth = WIDTH - left - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const y = (v: number) => round(TOP + plotHeight - (v / top) * plotHeight);
  const slot = plotWidth / Math.max(1, bars.length);
  const barWidth = round(Math.max(1, slot * 0.7));
  const every = Math.ceil(bars.length / MAX_LABELS);
  const titleId = `${chart.id}-title`;
  const descId = `${chart.id}-desc`;
  return html`<figure class="chart"><svg id="${chart.id}" role="img" aria-labelledby="${titleId} ${descId}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg">
<title id="${titleId}">${chart.title}</title>
<desc id="${descId}">${chart.description}</desc>
<g class="grid" aria-hidden="true">${ticks.map(
    (t) =>
      html`<line x1="${left}" x2="${WIDTH - RIGHT}" y1="${y(t)}" y2="${y(t)}"></line><text x="${left - 6}" y="${y(t) + 4}" text-anchor="end">${chart.axisValue(t)}</text>`,
  )}</g>
<g class="bars" aria-hidden="true">${bars.map((b, i) => {
    const x = round(left + i * slot + (slot - barWidth) / 2);
    const h = round(TOP + plotHeight - y(b.value));
    return html`<rect class="bar" x="${x}" y="${y(b.value)}" width="${barWidth}" height="${h}"></rect>`;
  })}</g>
<g class="labels" aria-hidden="true">${bars.map((b, i) =>
    i % every === 0
      ? html`<text x="${round(left + i * slot + slot / 2)}" y="${HEIGHT - 10}" text-anchor="middle">${b.axisLabel}</text>`
      : '',
  )}</g>
</svg></figure>`;
}
