/**
 * Input the user named that cannot be read or parsed: a finding at its file (and line), the other
 * files still checked, and `validate` exits 2.
 */
export class InputError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly reason: string,
  ) {
    super(`${line === undefined ? file : `${file}:${line}`}: ${reason}`);
  }
}
