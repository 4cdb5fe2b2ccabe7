/**
 * The sandbox workers: started on demand, kept idle for the next run, never holding the process
 * open. A run takes a worker of its own ({@link acquireWorker}), so overlapping runs each get one;
 * at the end it hands the worker back ({@link releaseWorker}) or, when it had to stop it or the
 * worker may be unsound, ends it ({@link discardWorker}). A stopped worker is replaced only when
 * the next run asks for one.
 */
import { Worker } from 'node:worker_threads';

/**
 * The most idle workers kept. Each holds a thread and its compiled QuickJS (a few MB); more than
 * a handful idle would only matter to a host running that many scripts at once, and those pay a
 * worker's start (tens of milliseconds) rather than hold the memory forever.
 */
const MAX_IDLE_WORKERS = 4;

const idle: Worker[] = [];

/** A worker for one run, idle or new. It holds the process open until it is released. */
export function acquireWorker(): Worker {
  const worker = idle.pop() ?? startWorker();
  worker.ref();
  return worker;
}

/** Give back a worker whose run ended cleanly; it waits for the next run without holding the process open. */
export function releaseWorker(worker: Worker): void {
  if (idle.length >= MAX_IDLE_WORKERS) {
    discardWorker(worker);
    return;
  }
  worker.unref();
  idle.push(worker);
}

/** End a worker at once, whatever it is doing (a script that will not stop, an abort). */
export function discardWorker(worker: Worker): void {
  forget(worker);
  // terminate() stops the thread even inside WebAssembly; its promise only reports the exit code.
  void worker.terminate().catch(() => undefined);
}

function forget(worker: Worker): void {
  const at = idle.indexOf(worker);
  if (at >= 0) idle.splice(at, 1);
}

function startWorker(): Worker {
  const worker = workerFromSource();
  // A worker that fails or exits on its own is never handed out again. The listener also keeps
  // an 'error' event from becoming an uncaught exception in the host when no run is listening.
  worker.on('error', () => forget(worker));
  worker.on('exit', () => forget(worker));
  return worker;
}

/**
 * The worker runs `sandbox-worker` from next to this module: the `.js` file in the built
 * package, the `.ts` source when this module itself runs from source (tests, `tsx`). A worker is a
 * plain Node thread that no test runner transforms, and in Node 20 a worker ignores `--import`
 * in its `execArgv`, so a source worker starts from a few lines that register tsx (a
 * devDependency) in the worker and then import the source file.
 */
function workerFromSource(): Worker {
  const here = import.meta.url;
  // No inherited execArgv: the host's own flags (a loader, an inspector port) are not the worker's.
  const options = { execArgv: [] as string[] };
  if (!here.endsWith('.ts')) return new Worker(new URL('./sandbox-worker.js', here), options);
  // The ESM entry of tsx's API: its CommonJS twin, and its `--import` loader (which registers
  // only on the main thread), do not load the worker's source.
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./sandbox-worker.ts', here).href;
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { ...options, eval: true });
}
