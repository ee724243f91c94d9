/**
 * A StatusCause message as the API server passes it on, split into apimachinery's wording and the
 * rule id the webhook appends (`... (rule module.release-name)`): how a client reads the wire format.
 */
export function splitCauseMessage(message: string): { message: string; rule?: string } {
  const match = / \(rule ([a-z0-9-]+\.[a-z0-9-]+)\)$/.exec(message);
  return match?.[1] ? { message: message.slice(0, match.index), rule: match[1] } : { message };
}
