// `harness2 bridge`'s server: a local Responses-API endpoint (what Codex speaks) in front of a
// chat-completions endpoint (what most providers and local servers speak). The upstream is called
// through the openai library, which parses its stream and errors; to-chat.ts and
// responses-stream.ts map the two wire formats. Every request must carry the bridge's own key.

import OpenAI from "openai";
import { Harness2Error } from "../core/lib/errors.ts";
import { type ResponsesEvent, ResponsesStream } from "./responses-stream.ts";
import { ResponsesRequest, toChat } from "./to-chat.ts";

export type BridgeOptions = {
  host: string;
  /** 0 = any free port. */
  port: number;
  /** The chat-completions base URL, e.g. http://127.0.0.1:11434/v1. */
  upstream: string;
  upstreamKey: string;
  /** The upstream's model id, instead of the one each request names. */
  model?: string;
  /** The key clients must send (Authorization: Bearer …). */
  key: string;
  /** One line per request. */
  log?: (line: string) => void;
  /** Limit of one upstream request, ms (default 600,000). */
  timeoutMs?: number;
};

export type Bridge = { url: string; port: number; stop: () => Promise<void> };

/** The upstream cannot be used: unreachable, or it refused the key. */
export class BridgeUpstreamError extends Harness2Error {
  constructor(message: string) {
    super(message);
  }
}

const enc = new TextEncoder();
const sse = (e: ResponsesEvent) => enc.encode(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);

function apiError(status: number, message: string, type = "invalid_request_error"): Response {
  return Response.json({ error: { message, type, code: null, param: null } }, { status });
}

/** A status and message for an error the upstream call threw before any chunk arrived. */
function upstreamFailure(err: unknown): { status: number; message: string } {
  if (err instanceof OpenAI.APIConnectionError) {
    return { status: 502, message: `the upstream cannot be reached: ${err.message}` };
  }
  if (err instanceof OpenAI.APIError) {
    const status = typeof err.status === "number" ? err.status : 502;
    // A 4xx from the upstream is passed on as it is (Codex does not retry it); a 5xx stays a 5xx.
    return { status, message: `upstream ${status}: ${err.message}` };
  }
  return {
    status: 502,
    message: `the upstream call failed: ${(err as Error).message ?? String(err)}`,
  };
}

/**
 * Checks the upstream before serving: a GET of its /models within 5 s. No answer at all, or a
 * refused key (401/403), throws BridgeUpstreamError with one line saying what to do; any other
 * answer (even 404, which some servers give) counts as reachable.
 */
export async function probeUpstream(upstream: string, key: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(`${upstream.replace(/\/+$/, "")}/models`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(5000),
    });
  } catch (err) {
    const e = err as { code?: string; cause?: { code?: string }; name?: string; message?: string };
    const code = e.code ?? e.cause?.code;
    const why = e.name === "TimeoutError" ? "no answer in 5 s" : (code ?? e.message ?? String(err));
    throw new BridgeUpstreamError(
      `the upstream ${upstream} cannot be reached (${why}). Start it or fix --upstream.`,
    );
  }
  await res.body?.cancel();
  if (res.status === 401 || res.status === 403) {
    throw new BridgeUpstreamError(
      `the upstream ${upstream} refused the key (HTTP ${res.status}). Set HARNESS2_BRIDGE_UPSTREAM_KEY to its API key.`,
    );
  }
}

export function startBridge(opts: BridgeOptions): Bridge {
  const client = new OpenAI({
    baseURL: opts.upstream,
    apiKey: opts.upstreamKey,
    maxRetries: 1,
    timeout: opts.timeoutMs ?? 600_000,
  });
  const log = opts.log ?? (() => {});
  const server = Bun.serve({
    hostname: opts.host,
    port: opts.port,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const started = Date.now();
      const done = (res: Response, note = "") => {
        log(`${req.method} ${url.pathname} -> ${res.status}${note} (${Date.now() - started} ms)`);
        return res;
      };
      if (req.headers.get("authorization") !== `Bearer ${opts.key}`) {
        return done(
          apiError(
            401,
            "wrong or missing key: use the HARNESS2_CODEX_API_KEY that harness2 bridge printed",
            "authentication_error",
          ),
        );
      }
      if (req.method === "GET" && url.pathname.endsWith("/models")) {
        const id = opts.model ?? "upstream";
        return done(
          Response.json({ object: "list", data: [{ id, object: "model", owned_by: "bridge" }] }),
        );
      }
      if (req.method !== "POST" || !url.pathname.endsWith("/responses")) {
        return done(
          apiError(
            404,
            `no route ${req.method} ${url.pathname}: the bridge serves POST /v1/responses`,
          ),
        );
      }
      let body: unknown;
      try {
        body = await req.json();
      } catch {
        return done(apiError(400, "the request body is not JSON"));
      }
      const parsed = ResponsesRequest.safeParse(body);
      if (!parsed.success) {
        return done(
          apiError(400, `not a Responses request: ${parsed.error.issues[0]?.message ?? "invalid"}`),
        );
      }
      const { chat, customTools } = toChat(parsed.data, opts.model);
      let upstream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>;
      try {
        upstream = await client.chat.completions.create(chat, { signal: req.signal });
      } catch (err) {
        const f = upstreamFailure(err);
        return done(
          apiError(f.status, f.message, f.status >= 500 ? "server_error" : "invalid_request_error"),
        );
      }
      const stream = new ResponsesStream(chat.model, customTools);
      if (parsed.data.stream === false) {
        try {
          for await (const c of upstream) stream.chunk(c);
        } catch (err) {
          const f = upstreamFailure(err);
          return done(apiError(502, f.message, "server_error"));
        }
        stream.finish();
        return done(Response.json(stream.completed()));
      }
      const body$ = new ReadableStream<Uint8Array>({
        async start(ctl) {
          for (const e of stream.start()) ctl.enqueue(sse(e));
          try {
            for await (const c of upstream) for (const e of stream.chunk(c)) ctl.enqueue(sse(e));
            for (const e of stream.finish()) ctl.enqueue(sse(e));
          } catch (err) {
            const f = upstreamFailure(err);
            log(`${req.method} ${url.pathname}: the upstream broke off: ${f.message}`);
            for (const e of stream.fail(f.message)) ctl.enqueue(sse(e));
          }
          ctl.close();
        },
      });
      return done(
        new Response(body$, {
          headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
        }),
        ` model=${chat.model}`,
      );
    },
  });
  const port = server.port ?? opts.port;
  const shownHost = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shownHost}:${port}/v1`,
    port,
    stop: async () => {
      await server.stop(true);
    },
  };
}
