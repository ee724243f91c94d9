/** Fits a warning into the 120 characters the API server allows (it drops longer ones). */
export function fitWarning(text: string): string {
  return text.length <= 120 ? text : `${text.slice(0, 117)}...`;
}
