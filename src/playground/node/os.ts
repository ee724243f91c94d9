/** node:os in the page: a temporary directory is never made there (see ./fs.ts). */
export function tmpdir(): string {
  return "/tmp";
}
