/**
 * The controls of the console's generated forms and the parts around them: selects, lists of
 * checkboxes, hints and errors tied to their controls (aria-describedby), and the currencies and
 * time zones a select offers.
 */
import { html, raw } from 'hono/html';
import type { Html } from '../../layout.ts';
import { supported } from './field-values.ts';

/** One choice of a reference field: the id sent and the name shown. */
export interface Choice {
  readonly value: string;
  readonly label: string;
}

export const describedBy = (ids: readonly (string | undefined)[]) => {
  const list = ids.filter(Boolean).join(' ');
  return list ? html` aria-describedby="${list}"` : '';
};

export const hintP = (id: string, hint: string | undefined) =>
  hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : '';

export const errorP = (id: string, error: string | undefined) =>
  error ? html`<p class="field-error" id="${id}-error">${error}</p>` : '';

export function labelText(label: string, required: boolean): Html {
  return required ? html`${label} <span class="muted">(required)</span>` : html`${label}`;
}

/** A select of `options` (value, words), with an empty "—" first when it may be left empty. */
export function select(
  id: string,
  name: string,
  options: readonly Choice[],
  current: string,
  empty: boolean,
  attrs: Html | string,
): Html {
  const known = options.some((o) => o.value === current);
  const list = !known && current ? [...options, { value: current, label: current }] : options;
  return html`<select id="${id}" name="${name}"${attrs}>${empty || !current ? html`<option value="">—</option>` : ''}${list.map(
    (o) => html`<option value="${o.value}"${o.value === current ? raw(' selected') : ''}>${o.label}</option>`,
  )}</select>`;
}

let currencyNames: { locale: string; choices: Choice[] } | undefined;
export function currencyChoices(locale: string): readonly Choice[] {
  if (currencyNames?.locale === locale) return currencyNames.choices;
  let names: Intl.DisplayNames | undefined;
  try {
    names = new Intl.DisplayNames([locale, 'en'], { type: 'currency' });
  } catch {
    names = undefined;
  }
  const choices = supported('currency').map((c) => ({ value: c, label: `${names?.of(c) ?? c} (${c})` }));
  currencyNames = { locale, choices };
  return choices;
}

let zoneChoices: Choice[] | undefined;
export function timeZoneChoices(): readonly Choice[] {
  zoneChoices ??= supported('timeZone').map((z) => ({ value: z, label: z.replace(/_/g, ' ') }));
  return zoneChoices;
}

/** A list of checkboxes under a legend; values not among `options` stay ticked, named by their value. */
export function checkboxList(
  field: { id: string; name: string; legend: Html; hint?: string; error?: string },
  options: readonly Choice[],
  values: readonly string[],
): Html {
  const { id, name, hint, error } = field;
  const current = new Set(values);
  const known = new Set(options.map((o) => o.value));
  const all = [...options, ...[...current].filter((v) => !known.has(v)).map((v) => ({ value: v, label: v }))];
  const ids = [hint ? `${id}-hint` : undefined, error ? `${id}-error` : undefined];
  return html`<fieldset${describedBy(ids)}><legend>${field.legend}</legend><input type="hidden" name="${name}" value="">${all.map(
    (o, i) =>
      html`<label class="check" for="${id}-${i}"><input type="checkbox" id="${id}-${i}" name="${name}" value="${o.value}"${current.has(o.value) ? raw(' checked') : ''}> ${o.label}</label>`,
  )}${all.length === 0 ? html`<p class="muted">Nothing to choose from yet.</p>` : ''}${hintP(id, hint)}${errorP(id, error)}</fieldset>`;
}
