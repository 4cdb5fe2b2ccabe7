/**
 * Text as the terms the tool ranking counts: words split at case changes and punctuation
 * (`listDirectory`, `list_directory`, `API-list-users` all give `list` and `directory`/`users`),
 * lower-cased, common English words dropped, and each word cut to a light stem so that `files`,
 * `listing` and `created` meet `file`, `list` and `create`.
 *
 * A query's words are also widened with the words tool authors use for the same thing (`folder`
 * for `directory`, `remove` for `delete`, `repo` for `repository`), counted for less than the
 * words the query says.
 */

/** Words that say nothing about which tool is meant. */
const STOP_WORDS = new Set(
  (
    'a an and any are as at be by can do does for from has have how i if in into is it its me my of on or our ' +
    'should so some than that the their them then there these this those to us using via was we what when where ' +
    'which who will with within without would you your please want need let'
  ).split(' '),
);

/**
 * Groups of words that name the same thing in tool descriptions. Each word of a query brings the
 * others of its groups in (as stems). Kept to words of tools in general, not of one catalog.
 */
const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['get', 'fetch', 'retrieve', 'read', 'obtain', 'view'],
  ['list', 'enumerate', 'show'],
  ['create', 'make', 'new', 'add', 'open'],
  ['delete', 'remove', 'erase', 'drop', 'trash', 'destroy'],
  ['update', 'edit', 'modify', 'change', 'patch', 'set', 'replace'],
  ['search', 'find', 'query', 'lookup', 'look', 'locate', 'filter'],
  ['write', 'save', 'store', 'put'],
  ['send', 'post', 'publish'],
  ['move', 'rename', 'relocate'],
  ['directory', 'folder', 'dir'],
  ['repository', 'repo'],
  ['screenshot', 'capture', 'picture', 'image', 'snapshot'],
  ['navigate', 'go', 'visit', 'goto', 'load', 'url', 'browse'],
  ['click', 'press', 'tap'],
  ['type', 'enter', 'input', 'fill'],
  ['message', 'msg', 'chat'],
  ['comment', 'reply', 'respond'],
  ['user', 'person', 'member', 'people', 'account', 'profile'],
  ['issue', 'ticket', 'bug'],
  ['page', 'tab', 'webpage', 'site'],
  ['log', 'console'],
  ['entity', 'node'],
  ['relation', 'relationship', 'link', 'connection'],
  ['observation', 'fact', 'note'],
  ['performance', 'trace', 'profile', 'speed', 'slow'],
  ['dialog', 'alert', 'popup', 'prompt', 'confirm'],
  ['evaluate', 'run', 'execute', 'script', 'javascript', 'js'],
  ['emulate', 'simulate', 'throttle', 'mimic'],
  ['upload', 'attach'],
  ['react', 'reaction', 'emoji'],
  ['size', 'dimension', 'resize', 'viewport'],
  ['key', 'keyboard', 'keystroke'],
  ['content', 'contents', 'text', 'body'],
  ['database', 'table', 'data'],
  ['wait', 'until', 'appear'],
  ['request', 'network', 'http', 'traffic'],
  ['close', 'quit', 'exit', 'shut'],
  ['sum', 'add', 'total', 'plus'],
];

/** Short forms tool users write, as the words they stand for. */
const ABBREVIATIONS: Readonly<Record<string, readonly string[]>> = {
  pr: ['pull', 'request'],
  prs: ['pull', 'request'],
  mr: ['merge', 'request'],
  mrs: ['merge', 'request'],
  kg: ['knowledge', 'graph'],
  env: ['environment'],
  dom: ['element'],
};

/** The stems each stem's groups bring in. */
const EXPANSIONS: ReadonlyMap<string, readonly string[]> = (() => {
  const byStem = new Map<string, Set<string>>();
  for (const group of SYNONYM_GROUPS) {
    const stems = group.map(stem);
    for (const one of stems) {
      const others = byStem.get(one) ?? new Set<string>();
      for (const other of stems) if (other !== one) others.add(other);
      byStem.set(one, others);
    }
  }
  return new Map([...byStem].map(([key, others]) => [key, [...others]]));
})();

/** The words of `text`: split at punctuation and case changes, lower-cased. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z\d])([A-Z])/gu, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/gu, '$1 $2')
    .toLowerCase()
    .split(/[^a-z\d]+/u)
    .filter(Boolean);
}

/**
 * Each word's terms, once worked out: a catalog says the same few thousand words over and over,
 * and building an index is mostly this. Emptied when it grows past its bound.
 */
const termsOfWord = new Map<string, readonly string[]>();
const MAX_CACHED_WORDS = 50_000;

/** The terms `text` is counted by: its words less the stop words, each as its stem. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const word of words(text)) {
    let found = termsOfWord.get(word);
    if (!found) {
      found = (Object.hasOwn(ABBREVIATIONS, word) ? ABBREVIATIONS[word] : [word]).filter((part) => !STOP_WORDS.has(part)).map(stem);
      if (termsOfWord.size >= MAX_CACHED_WORDS) termsOfWord.clear();
      termsOfWord.set(word, found);
    }
    out.push(...found);
  }
  return out;
}

/** The terms a query brings in besides its own: those of its words' synonym groups. */
export function expansions(queryTerms: readonly string[]): string[] {
  const own = new Set(queryTerms);
  const out = new Set<string>();
  for (const term of queryTerms) for (const other of EXPANSIONS.get(term) ?? []) if (!own.has(other)) out.add(other);
  return [...out];
}

/**
 * A light stem: plural, `-ing` and `-ed` endings off, then a final `e` (so `create`, `created`
 * and `creating` are one stem, and `files` and `file` another). Words of three letters or
 * fewer are kept as they are.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /^\d+$/u.test(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(ss|us|is)$/u.test(w)) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && w.length > 4) w = undouble(w.slice(0, -2));
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  return w;
}

/** `mapp` as `map`, `runn` as `run`: a doubled final consonant left by a cut ending. */
function undouble(w: string): string {
  return /([b-df-hj-kmnp-rtv-z])\1$/u.test(w) && !/(ll|ss|zz)$/u.test(w) ? w.slice(0, -1) : w;
}
