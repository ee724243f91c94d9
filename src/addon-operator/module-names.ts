/**
 * Module names and values keys as addon-operator converts them: a module `cert-manager` keeps its values
 * under `certManager`. A name is usable only when the conversion round-trips; otherwise addon-operator
 * looks for the module's values under a key nobody wrote.
 */

const kebabShape = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** `prometheus-operator` → `prometheusOperator` (words split on `-`, `_`, `.` and spaces). */
export function valuesKeyOf(moduleName: string): string {
  const words = moduleName.split(/[-_. ]+/).filter((word) => word !== "");
  return words
    .map((word, index) => (index === 0 ? word : `${word.charAt(0).toUpperCase()}${word.slice(1)}`))
    .join("");
}

/**
 * `prometheusOperator` → `prometheus-operator`. A capital starts a word; a run of capitals is one word
 * (`aBC` → `a-bc`), as in `JSONData` → `json-data`. Digits stay with the word before them.
 */
export function moduleNameOf(valuesKey: string): string {
  const words: string[] = [];
  let word = "";
  for (let i = 0; i < valuesKey.length; i++) {
    const char = valuesKey.charAt(i);
    const isUpper = char >= "A" && char <= "Z";
    const prevUpper = i > 0 && valuesKey.charAt(i - 1) >= "A" && valuesKey.charAt(i - 1) <= "Z";
    const next = valuesKey.charAt(i + 1);
    const nextLower = next >= "a" && next <= "z";
    const startsWord = isUpper && word !== "" && (!prevUpper || nextLower);
    if (startsWord) {
      words.push(word);
      word = "";
    }
    word += char.toLowerCase();
  }
  if (word !== "") words.push(word);
  return words.join("-");
}

/** Why a module name cannot be used, or undefined when it round-trips through its values key. */
export function moduleNameProblem(name: string): string | undefined {
  if (!kebabShape.test(name)) {
    return "must be kebab-case: lower case letters and digits in words joined by single '-', starting with a letter";
  }
  const key = valuesKeyOf(name);
  const back = moduleNameOf(key);
  if (back !== name) {
    return `does not survive the round trip through its values key: ${name} → ${key} → ${back}`;
  }
  return undefined;
}

/** `001-simple-module` → `simple-module`: a directory's module name, without the numeric prefix. */
export function moduleNameOfDirectory(directory: string): string {
  return directory.replace(/^[0-9]+-/, "");
}
