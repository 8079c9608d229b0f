/** Response language (D22): `Accept-Language` with q-values over en, de, fr, nl, da; default en. */
export const LANGUAGES = ['en', 'de', 'fr', 'nl', 'da'] as const;
export type Language = (typeof LANGUAGES)[number];

export function pickLanguage(header: string | null | undefined): Language {
  if (!header) return 'en';
  let best: Language = 'en';
  let bestQ = -1;
  for (const part of header.split(',')) {
    const [tag, ...params] = part.split(';');
    const primary = tag.trim().split('-')[0].toLowerCase();
    if (!(LANGUAGES as readonly string[]).includes(primary)) continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    if (!Number.isFinite(q) || q <= 0) continue;
    if (q > bestQ) {
      bestQ = q;
      best = primary as Language;
    }
  }
  return best;
}

/** A localized text: the chosen language, else en, else the alphabetically first available. */
export function localized(texts: Readonly<Record<string, string>> | null, lang: Language): string | null {
  if (texts === null) return null;
  if (texts[lang] !== undefined) return texts[lang];
  if (texts.en !== undefined) return texts.en;
  const keys = Object.keys(texts).sort();
  return keys.length === 0 ? null : texts[keys[0]];
}
