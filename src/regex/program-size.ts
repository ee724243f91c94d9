/**
 * An upper bound on the number of RE2 instructions a pattern compiles to, read from its text without
 * compiling it: each literal, class or escape counts one, a group its content plus two, `|` one, `*+?`
 * one more, and a counted repetition `{n,m}` multiplies what it repeats by its largest count (plus one
 * per copy). Cheap, linear in the pattern, and within a few times the real size, so that a pattern far
 * over the bound is refused before compiling costs time and memory.
 */
export function programSizeBound(pattern: string): number {
  // Each open group: the size of its content so far, and the size of its last atom (what a quantifier repeats).
  const stack: { size: number; last: number }[] = [{ size: 0, last: 0 }];
  const top = () => stack[stack.length - 1] as { size: number; last: number };
  const atom = (size: number) => {
    top().size += size;
    top().last = size;
  };
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === "\\") {
      i += braceEscape(pattern, i);
      atom(1);
    } else if (c === "[") {
      i = classEnd(pattern, i);
      atom(1);
    } else if (c === "(") {
      // A flag group such as `(?i)` compiles to nothing; `(?i:...)` and `(?:...)` are groups.
      const flags = /^\(\?[imsU-]*\)/.exec(pattern.slice(i, i + 12));
      if (flags) {
        top().last = 1;
        i += flags[0].length;
      } else {
        stack.push({ size: 0, last: 0 });
        i++;
      }
    } else if (c === ")") {
      const group = stack.length > 1 ? (stack.pop() as { size: number }) : { size: 0 };
      atom(group.size + 2);
      i++;
    } else if (c === "|") {
      top().size += 2;
      top().last = 0;
      i++;
    } else if (c === "*" || c === "+" || c === "?") {
      top().size += 1;
      i++;
    } else if (c === "{") {
      const repeat = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 16));
      if (repeat) {
        const count = Math.max(Number(repeat[1]), Number(repeat[3] || 0));
        const last = Math.max(top().last, 1);
        top().size += last * count + 2 * count + 2;
        top().last = last * (count + 1) + 2 * count + 2;
        i += repeat[0].length;
      } else {
        atom(1);
        i++;
      }
    } else {
      atom(1);
      i++;
    }
  }
  while (stack.length > 1) {
    const group = stack.pop() as { size: number };
    atom(group.size + 2);
  }
  return top().size + 3;
}

/** Characters taken by the escape at `i`: two, or up to its closing brace for `\p{...}` and `\x{...}`. */
function braceEscape(pattern: string, i: number): number {
  if (/[pPx]/.test(pattern[i + 1] ?? "") && pattern[i + 2] === "{") {
    const close = pattern.indexOf("}", i + 3);
    return close === -1 ? pattern.length - i : close - i + 1;
  }
  return 2;
}

/** The position after the character class starting at `i`. */
function classEnd(pattern: string, i: number): number {
  let j = i + 1;
  if (pattern[j] === "^") j++;
  if (pattern[j] === "]") j++;
  while (j < pattern.length && pattern[j] !== "]") {
    if (pattern[j] === "\\") j += 2;
    else if (pattern[j] === "[" && pattern[j + 1] === ":") {
      const close = pattern.indexOf(":]", j + 2);
      j = close === -1 ? j + 1 : close + 2;
    } else j++;
  }
  return j + 1;
}
