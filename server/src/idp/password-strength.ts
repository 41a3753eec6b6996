import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';

/**
 * Refuses passwords that would be guessed quickly: the common and breached
 * passwords of zxcvbn-ts's common-language dictionary (about 49,000, plus
 * 7,776 diceware words), their variants (l33t, reversed, a digit added),
 * keyboard walks, sequences, repeats, dates, and the person's own name or
 * e-mail. No composition rules: length and guessability only, as NIST SP
 * 800-63B 5.1.1.2 asks.
 */
let estimator: ZxcvbnFactory | null = null;
/** Built on the first password checked, not at start: ranking the dictionaries costs about 0.1 s of CPU. */
const estimate = () =>
  (estimator ??= new ZxcvbnFactory({
    dictionary: { ...common.dictionary },
    graphs: common.adjacencyGraphs,
  }));

/**
 * zxcvbn's score 2: at least about 10^6 guesses. Sign-in is throttled to at most
 * 60 guesses an hour per name (login-throttle.ts), so that is years of guessing;
 * score 3 would refuse every 8-character password (zxcvbn caps brute force at
 * 10^length), against the "at least 8".
 */
export const MIN_SCORE = 2;
/** Longer passwords are judged by their start (the estimator's time grows with length); a long one passes on length. */
const ANALYSED = 100;

const COMMON_WARNINGS = new Set(['topTen', 'topHundred', 'common', 'similarToCommon', 'commonNames']);

export const WEAK_MESSAGES = {
  common: 'This password is one of the most commonly used (or close to one), so it would be guessed quickly. Please choose another: a few unrelated words make a strong one.',
  personal: 'This password contains your username or e-mail (or the app’s name), so it would be guessed quickly. Please choose another: a few unrelated words make a strong one.',
  guessable: 'This password is too easy to guess (a word, name, date, sequence or keyboard pattern). Please choose a longer one: a few unrelated words make a strong one.',
} as const;

/** Why a password is refused, or null when it is strong enough. */
export function weakPasswordReason(password: string, userInputs: string[] = []): string | null {
  const result = estimate().check(password.slice(0, ANALYSED), userInputs.filter(Boolean));
  if (result.score >= MIN_SCORE) return null;
  const warning = result.feedback.warning ?? '';
  if (warning === 'userInputs') return WEAK_MESSAGES.personal;
  return COMMON_WARNINGS.has(warning) ? WEAK_MESSAGES.common : WEAK_MESSAGES.guessable;
}
