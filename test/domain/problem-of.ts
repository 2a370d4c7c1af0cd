/** Resolves to the ProblemError a promise rejects with, for asserting status and code. */
export async function problemOf(
  p: Promise<unknown>,
): Promise<{ status: number; code: string; errors?: unknown }> {
  try {
    await p;
  } catch (err) {
    const e = err as { name?: string; status: number; code: string; errors?: unknown };
    if (e.name !== 'ProblemError') throw err;
    return { status: e.status, code: e.code, errors: e.errors };
  }
  throw new Error('expected a ProblemError, but the call succeeded');
}
