/**
 * Language selection (D22), translated no-price reasons (D23) and tag texts (D42) of charge prices.
 */
import { LANGUAGES, localized as localizedOrNull, pickLanguage, type Language } from '../language.js';
import type { NoPriceReason, Tag } from './model.js';

export { LANGUAGES, pickLanguage, type Language };

/** D23. */
export const REASON_TEXTS: Readonly<Record<NoPriceReason, Readonly<Record<Language, string>>>> = {
  not_yet_listed: {
    en: 'This price is not yet listed in our system.',
    de: 'Dieser Preis ist in unserem System noch nicht erfasst.',
    fr: "Ce prix n'est pas encore répertorié dans notre système.",
    nl: 'Deze prijs staat nog niet in ons systeem.',
    da: 'Denne pris er endnu ikke registreret i vores system.',
  },
  prices_per_station: {
    en: 'Prices per station',
    de: 'Preise je Station',
    fr: 'Prix par station',
    nl: 'Prijzen per station',
    da: 'Priser pr. station',
  },
  not_public: {
    en: 'Prices are not public.',
    de: 'Die Preise sind nicht öffentlich.',
    fr: 'Les prix ne sont pas publics.',
    nl: 'De prijzen zijn niet openbaar.',
    da: 'Priserne er ikke offentlige.',
  },
  no_reliable_data_available: {
    en: 'No reliable price data available.',
    de: 'Keine verlässlichen Preisdaten verfügbar.',
    fr: 'Aucune donnée tarifaire fiable disponible.',
    nl: 'Geen betrouwbare prijsgegevens beschikbaar.',
    da: 'Ingen pålidelige prisdata tilgængelige.',
  },
};

/** D22 lookup: the chosen language, else `en`, else the alphabetically first available ('' when none). */
export function localized(texts: Readonly<Record<string, string>>, lang: string): string {
  return localizedOrNull(texts, lang as Language) ?? '';
}

export function reasonText(code: NoPriceReason, lang: Language): string {
  return REASON_TEXTS[code][lang];
}

/**
 * D42: `{kind, text, url}` of the tags still shown: a tag is dropped after `show_until`, or when
 * `hide_for_owners` is set and the tariff was listed in `relationships.tariffs`.
 */
export function visibleTags(
  tags: readonly Tag[],
  lang: Language,
  nowMs: number,
  tariffListed: boolean,
): { kind: string; text: string; url: string | null }[] {
  const out: { kind: string; text: string; url: string | null }[] = [];
  for (const t of tags) {
    if (t.show_until != null && nowMs > t.show_until) continue;
    if (t.hide_for_owners && tariffListed) continue;
    out.push({ kind: t.kind, text: localized(t.localized_text, lang), url: t.url ?? null });
  }
  return out;
}
