/**
 * A one-line progress bar redrawn in place (`\r`) on a terminal; cleared when done. Redraws only when
 * the shown percentage changes, so large inputs do not spend their time writing to the terminal.
 */
export function progressBar(
  total: number,
  write: (text: string) => void,
  width = 30,
): (done: number) => void {
  let shown = -1;
  return (done) => {
    const percent = Math.floor((done / total) * 100);
    if (percent === shown) return;
    shown = percent;
    const filled = Math.round((done / total) * width);
    write(`\rvalidating [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${percent}%`);
    if (done >= total) write(`\r${" ".repeat(width + 18)}\r`);
  };
}
