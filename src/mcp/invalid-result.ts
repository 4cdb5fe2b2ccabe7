/**
 * A server's answer that the SDK refused because its shape is wrong (its result schema failed), in
 * one line that says what was wrong (`content must be an array`), instead of the validator's issues
 * as JSON.
 */

/** One validation issue, as the SDK's validator (zod 4) reports it: only the fields read here. */
interface Issue {
  code?: string;
  path?: readonly PropertyKey[];
  message?: string;
  expected?: string;
  values?: readonly unknown[];
  errors?: readonly (readonly Issue[])[];
}

/** An error carrying validation issues: what the SDK rejects a request with when the answer's result has the wrong shape. */
export function isInvalidResult(error: unknown): error is Error & { issues: readonly Issue[] } {
  return error instanceof Error && Array.isArray((error as { issues?: unknown }).issues);
}

/** The issues in one line: the first explained, and how many more there are. */
export function describeIssues(issues: readonly Issue[]): string {
  if (issues.length === 0) return 'it does not have the shape the protocol asks for';
  const more = issues.length - 1;
  return `${describe(issues[0]!, [])}${more > 0 ? ` (and ${more} more problem${more === 1 ? '' : 's'})` : ''}`;
}

function describe(issue: Issue, at: readonly PropertyKey[]): string {
  const path = [...at, ...(issue.path ?? [])];
  const where = pathText(path);
  switch (issue.code) {
    case 'invalid_type':
      return `${where} must be ${withArticle(issue.expected === 'record' ? 'object' : String(issue.expected))}`;
    case 'invalid_value':
      return `${where} must be ${oneOf(issue.values ?? [])}`;
    case 'invalid_union':
      return describeUnion(issue.errors ?? [], path);
    default:
      return `${where}: ${issue.message ?? 'not valid'}`;
  }
}

/**
 * A value that matched none of the shapes allowed. When every shape refused the same field's value
 * (the `type` of a content block), that field and every value allowed; otherwise the shape it came
 * closest to (the fewest problems) and its first problem.
 */
function describeUnion(branches: readonly (readonly Issue[])[], at: readonly PropertyKey[]): string {
  if (branches.length === 0) return `${pathText(at)} is not valid`;
  const keys = branches.map((branch) => branch.find((issue) => issue.code === 'invalid_value'));
  const first = keys[0];
  if (keys.every((key) => key !== undefined && samePath(key.path, first?.path))) {
    const values = keys.flatMap((key) => key!.values ?? []);
    return `${pathText([...at, ...(first!.path ?? [])])} must be ${oneOf(values)}`;
  }
  const closest = branches.reduce((best, branch) => (branch.length < best.length ? branch : best));
  return closest.length ? describe(closest[0]!, at) : `${pathText(at)} is not valid`;
}

function samePath(a: readonly PropertyKey[] | undefined, b: readonly PropertyKey[] | undefined): boolean {
  return JSON.stringify((a ?? []).map(String)) === JSON.stringify((b ?? []).map(String));
}

/** `content[0].text`; the result itself when the path is empty. */
function pathText(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'the result';
  return path.map((key, at) => (typeof key === 'number' ? `[${key}]` : at === 0 ? String(key) : `.${String(key)}`)).join('');
}

function oneOf(values: readonly unknown[]): string {
  const shown = values.map((value) => JSON.stringify(value));
  if (shown.length <= 1) return shown[0] ?? 'another value';
  return `one of ${shown.join(', ')}`;
}

function withArticle(noun: string): string {
  return `${/^[aeiou]/u.test(noun) ? 'an' : 'a'} ${noun}`;
}
