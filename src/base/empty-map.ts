/**
 * A map without a prototype: every key built from input (`__proto__`, `constructor`) is an own key like
 * any other, never a setter or an inherited member.
 */
export const emptyMap = (): Record<string, unknown> => Object.create(null) as Record<string, unknown>;
