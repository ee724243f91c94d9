/**
 * A scan for a fixed pattern over user text in one pass, whatever the text: the pattern is built from
 * the combinators below into a Thompson automaton and run as a lazily built DFA, so each character
 * costs one table lookup, and building a DFA state costs at most the automaton's size, with the number
 * of states bounded. JavaScript's backtracking regexes are quadratic or worse on some lines
 * (`[ \t]*(?:x)?[ \t]*:` on 60,000 blanks took 13 s); this cannot be.
 *
 * The alphabet: UTF-16 units 0-127 each their own symbol, the line separators U+2028 and U+2029 one,
 * every other unit one more, and two sentinels, the text's start and its end, so that the line
 * anchors `^` and `$` of a multiline regex are written as consuming the character before or after
 * (`lineBefore`, `lineAfter`): only whether a match exists is asked, never where.
 */
const lineSeparator = 128;
const otherUnit = 129;
const textStart = 130;
const textEnd = 131;
const symbolCount = 132;

/** A set of symbols. */
export type Symbols = Uint8Array;

function symbolOf(unit: number): number {
  if (unit < 128) return unit;
  return unit === 0x2028 || unit === 0x2029 ? lineSeparator : otherUnit;
}

/** The ASCII characters of `text`, letters in both cases when `ignoreCase`. */
export function chars(text: string, ignoreCase = false): Symbols {
  const set = new Uint8Array(symbolCount);
  for (const c of text) {
    set[symbolOf(c.charCodeAt(0))] = 1;
    if (ignoreCase) {
      set[c.toLowerCase().charCodeAt(0)] = 1;
      set[c.toUpperCase().charCodeAt(0)] = 1;
    }
  }
  return set;
}

/** The characters from `first` to `last` (ASCII). */
export function range(first: string, last: string): Symbols {
  const set = new Uint8Array(symbolCount);
  for (let c = first.charCodeAt(0); c <= last.charCodeAt(0); c++) set[c] = 1;
  return set;
}

export function union(...sets: Symbols[]): Symbols {
  const set = new Uint8Array(symbolCount);
  for (const s of sets) for (let i = 0; i < symbolCount; i++) set[i] = set[i] || (s[i] as number);
  return set;
}

/** Every character (every UTF-16 unit) not in `set`; never the sentinels. */
export function not(set: Symbols): Symbols {
  const out = new Uint8Array(symbolCount);
  for (let i = 0; i < textStart; i++) out[i] = set[i] ? 0 : 1;
  return out;
}

const lineBreaks = union(
  chars("\n\r"),
  Uint8Array.from({ length: symbolCount }, (_, i) => +(i === lineSeparator)),
);
/** What `^` of a multiline regex follows: the text's start or a line terminator. */
export const lineBefore: Symbols = union(
  lineBreaks,
  Uint8Array.from({ length: symbolCount }, (_, i) => +(i === textStart)),
);
/** What `$` of a multiline regex precedes: a line terminator or the text's end. */
export const lineAfter: Symbols = union(
  lineBreaks,
  Uint8Array.from({ length: symbolCount }, (_, i) => +(i === textEnd)),
);

/** An automaton under construction: consuming states (a symbol set and one successor) and splits. */
class Automaton {
  readonly sets: (Symbols | undefined)[] = [];
  readonly next: number[][] = [];

  add(set: Symbols | undefined, next: number[]): number {
    this.sets.push(set);
    this.next.push(next);
    return this.sets.length - 1;
  }
}

/** A pattern: given the state that follows it, adds its states and returns its entry. */
export type Pattern = (automaton: Automaton, follow: number) => number;

export const is =
  (set: Symbols): Pattern =>
  (a, follow) =>
    a.add(set, [follow]);

/** `text` literally, letters in both cases when `ignoreCase`. */
export const word = (text: string, ignoreCase = false): Pattern =>
  seq(...[...text].map((c) => is(chars(c, ignoreCase))));

export const seq =
  (...patterns: Pattern[]): Pattern =>
  (a, follow) =>
    patterns.reduceRight((next, p) => p(a, next), follow);

export const alt =
  (...patterns: Pattern[]): Pattern =>
  (a, follow) =>
    a.add(
      undefined,
      patterns.map((p) => p(a, follow)),
    );

export const optional = (p: Pattern): Pattern => alt(p, seq());

export const star =
  (p: Pattern): Pattern =>
  (a, follow) => {
    const loop = a.add(undefined, []);
    (a.next[loop] as number[]).push(p(a, loop), follow);
    return loop;
  };

export const plus = (p: Pattern): Pattern => seq(p, star(p));

/** `p` from `min` to `max` times. */
export const repeat = (p: Pattern, min: number, max: number): Pattern =>
  seq(...Array.from({ length: min }, () => p), ...Array.from({ length: max - min }, () => optional(p)));

/** Work a scan did: characters read and automaton states visited building DFA states. */
export interface ScanWork {
  steps: number;
}

/** DFA states kept before the table is dropped and built again (RE2's answer to a state blow-up). */
const maxStates = 2048;

/**
 * A compiled pattern, found anywhere in a text (`test`, as `RegExp.test`): the text's characters each
 * cost one step, and each DFA state built the automaton states it holds.
 */
export class LinearScan {
  private readonly automaton = new Automaton();
  private readonly accept: number;
  private readonly entry: number;
  private table: Int32Array = new Int32Array(0);
  private members: number[][] = [];
  private accepting: boolean[] = [];
  private ids = new Map<string, number>();

  constructor(pattern: Pattern) {
    this.accept = this.automaton.add(undefined, []);
    this.entry = pattern(this.automaton, this.accept);
    this.reset();
  }

  /** The number of automaton states (the bound on one DFA state's cost). */
  get size(): number {
    return this.automaton.sets.length;
  }

  test(text: string, work: ScanWork = { steps: 0 }): boolean {
    let state = this.stateOf([], work);
    if (this.accepting[state]) return true;
    for (let i = -1; i <= text.length; i++) {
      const symbol = i < 0 ? textStart : i === text.length ? textEnd : symbolOf(text.charCodeAt(i));
      let next = this.table[state * symbolCount + symbol] as number;
      if (next < 0) next = this.step(state, symbol, work);
      work.steps++;
      if (this.accepting[next]) return true;
      state = next;
    }
    return false;
  }

  private reset(): void {
    this.table = new Int32Array(symbolCount * 64).fill(-1);
    this.members = [];
    this.accepting = [];
    this.ids = new Map();
  }

  /** The DFA state after `state` reads `symbol`, in a new table when the old one was full. */
  private step(state: number, symbol: number, work: ScanWork): number {
    if (this.ids.size >= maxStates) {
      const kept = this.members[state] as number[];
      this.reset();
      state = this.stateOf(kept, work);
    }
    const targets: number[] = [];
    for (const s of this.members[state] as number[]) {
      if ((this.automaton.sets[s] as Symbols)[symbol]) targets.push(...(this.automaton.next[s] as number[]));
    }
    const next = this.stateOf(targets, work);
    this.table[state * symbolCount + symbol] = next;
    return next;
  }

  /**
   * The DFA state of `starts` and everything they reach without reading, with the pattern's entry (a
   * match may begin anywhere): its consuming automaton states, in a canonical order.
   */
  private stateOf(starts: number[], work: ScanWork): number {
    const seen = new Set<number>();
    const consuming: number[] = [];
    let accepting = false;
    const stack = [this.entry, ...starts];
    while (stack.length > 0) {
      const s = stack.pop() as number;
      if (seen.has(s)) continue;
      seen.add(s);
      work.steps++;
      if (s === this.accept) accepting = true;
      if (this.automaton.sets[s] === undefined) stack.push(...(this.automaton.next[s] as number[]));
      else consuming.push(s);
    }
    consuming.sort((x, y) => x - y);
    const key = `${accepting ? "!" : ""}${consuming.join(",")}`;
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    const id = this.members.length;
    this.ids.set(key, id);
    this.members.push(consuming);
    this.accepting.push(accepting);
    if ((id + 1) * symbolCount > this.table.length) {
      const grown = new Int32Array(this.table.length * 2).fill(-1);
      grown.set(this.table);
      this.table = grown;
    }
    return id;
  }
}
