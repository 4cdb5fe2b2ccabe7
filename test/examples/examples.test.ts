import { describe, expect, it } from 'vitest';
import { main as annotate } from '../../examples/combinators/annotate.js';
import { main as forEach } from '../../examples/combinators/for-each.js';
import { main as gather } from '../../examples/combinators/gather.js';
import { main as pipe } from '../../examples/combinators/pipe.js';
import { main as scope } from '../../examples/combinators/scope.js';
import { main as tryAndCheck } from '../../examples/combinators/try-and-check.js';
import { main as runPipeline } from '../../examples/pipeline/run-pipeline.js';

const quiet = () => {};

describe('the examples keep working', () => {
  it('gather', async () => {
    const result = await gather(quiet);
    expect(Object.keys(result.output as object)).toEqual(['source', 'tests', 'status']);
    expect((result.output as { status: { passed: boolean } }).status.passed).toBe(false);
  });
  it('for_each', async () => {
    const result = await forEach(quiet);
    expect(result.output).toEqual({ files: ['src/app/cache.js', 'src/app/orders.js', 'src/app/profile.js', 'src/app/report.js'], counts: [1, 1, 1, 1] });
  });
  it('pipe', async () => {
    expect((await pipe(quiet)).output).toBe(3);
  });
  it('try_and_check', async () => {
    const { wrong, right } = await tryAndCheck(quiet);
    expect(wrong.details?.code).toBe('check_failed');
    expect(right.success).toBe(true);
  });
  it('scope with rollback', async () => {
    const { result, unchanged } = await scope(quiet);
    expect(result.details).toMatchObject({ code: 'check_failed', rollback: { complete: true } });
    expect(unchanged).toBe(true);
  });
  it('annotate', async () => {
    const result = await annotate(quiet);
    expect(String(result.output)).toContain('report.js');
    expect(result.details).toMatchObject({ annotations: [{ hypothesis: 'report.js calls cacheKey(region, user)' }] });
  });
  it('run_pipeline', async () => {
    const result = await runPipeline(quiet);
    const steps = (result.details?.steps as { id: string; ok: boolean; output: unknown }[]);
    expect(steps.map((s) => s.ok)).toEqual([true, true, true, true]);
    expect(steps[3].output).toBe(6);
  });
});

describe('the flows example keeps working', () => {
  it('pays the refund without a question, and asks about (and is refused) each payment the bill steers', async () => {
    const { main } = await import('../../examples/flows/banking-agent.js');
    const { refunded, hijacked, followed, paid, questions } = await main(() => {});
    expect(refunded.success).toBe(true);
    expect([hijacked.details?.code, followed.details?.code]).toEqual(['approval_rejected', 'approval_rejected']);
    expect(paid).toEqual(['1200 to DE11-LANDLORD']);
    expect(questions).toHaveLength(2);
    expect(questions[0]).toContain('"recipient": from read_file, step "bill": untrusted');
  });
});
