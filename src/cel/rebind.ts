/**
 * A CEL expression with some of its top-level identifiers replaced by other expressions (`self` by
 * `object.spec.helm`): what turns a CRD's validation rule, written for its schema node, into an
 * admission policy's expression on the whole object. Only identifiers are replaced: never inside a
 * string literal, never a field name after `.` (`x.self`), never a function or macro name.
 */
export function rebind(expression: string, bindings: Record<string, string>): string {
  let out = "";
  let i = 0;
  while (i < expression.length) {
    const c = expression[i] as string;
    const literal = stringLiteralEnd(expression, i);
    if (literal !== undefined) {
      out += expression.slice(i, literal);
      i = literal;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let end = i + 1;
      while (end < expression.length && /[A-Za-z0-9_]/.test(expression[end] as string)) end++;
      const word = expression.slice(i, end);
      const afterDot = /\.\s*$/.test(out);
      const call = /^\s*\(/.test(expression.slice(end));
      const replacement = bindings[word];
      out += replacement !== undefined && !afterDot && !call ? `(${replacement})` : word;
      i = end;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/**
 * Where the string literal that starts at `start` ends (the index after it), or undefined when none
 * starts there: '…', "…", triple-quoted, raw (r'…') and bytes (b'…') literals, with backslash escapes.
 */
function stringLiteralEnd(text: string, start: number): number | undefined {
  let i = start;
  let raw = false;
  // A prefix letter counts only at the start of a token.
  const before = start > 0 ? (text[start - 1] as string) : "";
  if (/[rRbB]/.test(text[i] as string) && !/[A-Za-z0-9_]/.test(before)) {
    const next = text[i + 1];
    const nextNext = text[i + 2];
    if (next === "'" || next === '"') {
      raw = /[rR]/.test(text[i] as string);
      i += 1;
    } else if (/[rRbB]/.test(next ?? "") && (nextNext === "'" || nextNext === '"')) {
      raw = /[rR]/.test(text[i] as string) || /[rR]/.test(next ?? "");
      i += 2;
    }
  }
  const quote = text[i];
  if (quote !== "'" && quote !== '"') return undefined;
  const triple = text.startsWith(quote.repeat(3), i);
  const close = triple ? quote.repeat(3) : quote;
  let j = i + close.length;
  while (j < text.length) {
    if (!raw && text[j] === "\\") {
      j += 2;
      continue;
    }
    if (text.startsWith(close, j)) return j + close.length;
    j++;
  }
  return text.length;
}
