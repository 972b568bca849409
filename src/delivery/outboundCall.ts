import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface OutboundCall {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface OutboundOptions {
  readonly timeoutMs: number;
  readonly allowPrivate: boolean;
  readonly answerHeadBytes: number;
}

export type CallResult =
  | { readonly outcome: 'answered'; readonly status: number; readonly answerHead: string; readonly durationMs: number }
  | { readonly outcome: 'error'; readonly error: string; readonly durationMs: number };

/**
 * One outbound `POST` of a webhook call: its status and the first `answerHeadBytes` of the
 * answer, or the error that kept it from coming within `timeoutMs` (from the start of the call
 * to the end of the answer). Never throws.
 */
export function sendCall(call: OutboundCall, options: OutboundOptions): Promise<CallResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  return new Promise<CallResult>((resolve) => {
    let settled = false;
    const settle = (result: CallResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    let url: URL;
    try {
      url = new URL(call.url);
    } catch {
      settle({ outcome: 'error', error: 'not a URL', durationMs: took() });
      return;
    }
    const body = Buffer.from(call.body);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const outgoing = send(url, { method: 'POST', headers: { ...call.headers, 'content-length': String(body.length) } }, (answer) => {
      const chunks: Buffer[] = [];
      let held = 0;
      answer.on('data', (chunk: Buffer) => {
        if (held < options.answerHeadBytes) chunks.push(chunk.subarray(0, options.answerHeadBytes - held));
        held += chunk.length;
      });
      answer.on('end', () => settle({ outcome: 'answered', status: answer.statusCode ?? 0, answerHead: Buffer.concat(chunks).toString('utf8'), durationMs: took() }));
      answer.on('error', (error) => settle({ outcome: 'error', error: error.message, durationMs: took() }));
    });
    const timer = setTimeout(() => {
      settle({ outcome: 'error', error: `no answer within ${options.timeoutMs} ms`, durationMs: took() });
      outgoing.destroy();
    }, options.timeoutMs);
    outgoing.on('error', (error) => settle({ outcome: 'error', error: error.message, durationMs: took() }));
    outgoing.end(body);
  });
}
