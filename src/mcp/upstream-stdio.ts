/**
 * The client side of stdio to an MCP server the proxy starts: the SDK's `Transport` over the
 * child's stdin and stdout, reading stdout with a bound on each message. A message the SDK's own
 * stdio client cannot take (one over its 10 MB buffer closes the connection, so every call in
 * flight of every session fails and the server is restarted; a line that is not JSON-RPC leaves its
 * call waiting for the timeout) costs here only the request it answers:
 *
 * - a line longer than `maxMessageBytes` is passed over as it streams (never held whole), and the
 *   request it answers fails with `upstream_result_too_large`;
 * - a line that is not JSON, or not a JSON-RPC message, fails the request it answers at once with
 *   `upstream_error`;
 * - a line whose request cannot be told (text a server prints on stdout, a notification cut short)
 *   is passed over, reported, and fails nothing.
 *
 * Which request a bad line answers: its id, read from either end of the line, when that id is a
 * request in flight. A line that is an answer cut before its id (the TypeScript SDK writes the id
 * last) is put down to the one request in flight when there is only one; with several in flight it
 * cannot be told which, and failing them all would fail calls of other sessions that will still get
 * their own answers, so it fails none: the one it answered ends at its timeout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  JSONRPCMessageSchema,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { messageOf } from '../gate/message-of.js';
import { BoundedLines, LINE_END_BYTES, type LongLine } from './bounded-lines.js';
import { peekMessage, peekValue, type MessagePeek } from './jsonrpc-peek.js';
import { stopGroup, trackGroup, USES_PROCESS_GROUPS } from './process-group.js';
import { UpstreamFault, type UpstreamFaultCode } from './upstream-fault.js';

/** How to start the server, and the bound on what it writes. */
export interface UpstreamStdioOptions {
  /** The command. */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
  /** Its whole environment. */
  env?: Record<string, string>;
  /** The folder it starts in. */
  cwd?: string;
  /** The most bytes of one message (one line) read; a longer one fails the request it answers. */
  maxMessageBytes: number;
  /** Told, with a code and a sentence, of each line passed over or request failed (the first {@link MAX_REPORTS} per connection). */
  report?: (code: UpstreamFaultCode, message: string) => void;
}

/** Lines reported per connection: a server that writes junk without end is not echoed without end. */
const MAX_REPORTS = 20;
/**
 * How long `close` waits for the server to exit after its stdin ends, and again for its process
 * group to empty after SIGTERM, before SIGKILL.
 */
const CLOSE_WAIT_MS = 2_000;
/** The most characters of a bad line quoted in a report. */
const QUOTED_CHARS = 160;

/** stdio to a server process, each message bounded. */
export class UpstreamStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** What the server writes on stderr, available before `start`. */
  readonly stderr = new PassThrough();
  private child: ChildProcess | undefined;
  /** The server's process group (its process id), once started; kept after it exits, for what it left. */
  private group: number | undefined;
  private closing: Promise<void> | undefined;
  private readonly lines: BoundedLines;
  /**
   * The requests sent and not yet answered, with their method. As many as the SDK has open: each
   * leaves with its answer, its cancellation (a timeout or an abort sends one) or the close.
   */
  private readonly pending = new Map<RequestId, string>();
  private reports = 0;

  constructor(private readonly options: UpstreamStdioOptions) {
    this.lines = new BoundedLines(
      options.maxMessageBytes,
      (line) => this.line(line),
      (line) => this.longLine(line),
    );
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('UpstreamStdioTransport already started'));
    const { command, args = [], env, cwd } = this.options;
    return new Promise((resolve, reject) => {
      // A group of its own: whatever the server starts is stopped with it (see process-group.ts).
      const child = spawn(command, [...args], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'], shell: false, windowsHide: true, detached: USES_PROCESS_GROUPS });
      this.child = child;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => {
        if (USES_PROCESS_GROUPS && child.pid !== undefined) {
          this.group = child.pid;
          trackGroup(child.pid);
        }
        resolve();
      });
      // A server that exited on its own may have left processes it started, which may hold its
      // stdout open (so 'close' waits for them): they go too.
      child.on('exit', () => {
        if (!this.closing && this.group !== undefined) void this.stopGroup();
      });
      child.on('close', () => {
        this.child = undefined;
        this.lines.clear();
        this.pending.clear();
        this.onclose?.();
      });
      child.stdin!.on('error', (error) => this.onerror?.(error));
      child.stdout!.on('data', (chunk: Buffer) => this.lines.push(chunk));
      // A stdout that fails carries no more answers: close, so every call waiting fails now.
      child.stdout!.on('error', (error) => {
        this.onerror?.(error);
        void this.close();
      });
      child.stderr!.pipe(this.stderr);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || stdin.writableEnded) return Promise.reject(new Error('Not connected'));
    if (isJSONRPCRequest(message)) this.pending.set(message.id, message.method);
    else if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') this.pending.delete(message.params?.requestId as RequestId);
    return new Promise((resolve) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) return resolve();
      // A server that stops reading holds this until it reads again or its stdin closes.
      const done = () => {
        stdin.off('drain', done);
        stdin.off('close', done);
        resolve();
      };
      stdin.on('drain', done);
      stdin.on('close', done);
    });
  }

  /**
   * End the server: its stdin is closed, and a server that has not exited within
   * {@link CLOSE_WAIT_MS} is stopped with its whole process group (SIGTERM, then SIGKILL). The
   * group is stopped even when the server exited, for what it left running. Called twice, the
   * second call waits for the first.
   */
  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    // A child with no process id never started (the command was not found): nothing to wait for.
    const child = this.child?.pid === undefined ? undefined : this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        child.stdin?.end();
      } catch {
        // Already gone: the wait below sees it.
      }
      await Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
    }
    if (this.group !== undefined) {
      await this.stopGroup();
      return;
    }
    // Without process groups (Windows): the server alone.
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        setTimeout(resolve, CLOSE_WAIT_MS).unref();
      });
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }

  /** Stop the server's group; once it is seen empty it is never signalled again (its id may be reused). */
  private async stopGroup(): Promise<void> {
    const group = this.group;
    if (group !== undefined && (await stopGroup(group, CLOSE_WAIT_MS)) && this.group === group) this.group = undefined;
  }

  /** A whole line within the bound. */
  private line(bytes: Buffer): void {
    const text = bytes.toString('utf8').replace(/\r$/u, '');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const peek = peekMessage(text.slice(0, LINE_END_BYTES), text.slice(-LINE_END_BYTES));
      this.bad(peek, text, new UpstreamFault('upstream_error', `is not valid JSON (${messageOf(error)})`, { mcpCode: ErrorCode.ParseError }));
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.bad(peekValue(value), text, new UpstreamFault('upstream_error', 'is JSON but not a valid JSON-RPC message', { mcpCode: ErrorCode.InvalidRequest }));
      return;
    }
    const message = parsed.data;
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) this.pending.delete(message.id as RequestId);
    this.onmessage?.(message);
  }

  /** A line past the bound: only its size and ends were kept. */
  private longLine(line: LongLine): void {
    const peek = peekMessage(line.head.toString('utf8'), line.tail.toString('utf8'));
    const max = this.options.maxMessageBytes;
    const fault = new UpstreamFault('upstream_result_too_large', `is ${line.bytes} bytes, over the ${max} bytes one answer may have`, { bytes: line.bytes, maxBytes: max });
    this.bad(peek, `${line.head.toString('utf8')}... (${line.bytes} bytes)`, fault);
  }

  /** Fail the request a bad line answers, if it can be told; otherwise pass the line over. */
  private bad(peek: MessagePeek, text: string, fault: UpstreamFault): void {
    const id = this.answered(peek);
    const quoted = JSON.stringify(text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}...` : text);
    if (id === undefined) {
      this.report('upstream_error', `passed over a line on stdout that ${fault.problem}, matched to no request in flight: ${quoted}`);
      return;
    }
    const method = this.pending.get(id);
    this.pending.delete(id);
    this.report(fault.code, `the answer to request ${JSON.stringify(id)} (${method}) ${fault.problem}; that request failed: ${quoted}`);
    const code = typeof fault.details.mcpCode === 'number' ? fault.details.mcpCode : ErrorCode.InternalError;
    this.onmessage?.({ jsonrpc: '2.0', id, error: { code, message: `The answer ${fault.problem}.`, data: fault } });
  }

  /** The request in flight a bad line answers, when it can be told. */
  private answered(peek: MessagePeek): RequestId | undefined {
    if (peek.kind === 'other') return undefined;
    if (peek.id !== undefined) return this.pending.has(peek.id) ? peek.id : undefined;
    if (peek.kind === 'answer' && this.pending.size === 1) return this.pending.keys().next().value;
    return undefined;
  }

  private report(code: UpstreamFaultCode, message: string): void {
    if (this.reports >= MAX_REPORTS) return;
    this.reports++;
    this.options.report?.(code, this.reports === MAX_REPORTS ? `${message} (further such lines are not reported)` : message);
  }
}
