// node-oidc-provider ships no types; the peer server uses a handful of its members.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Model {
    save(): Promise<string>;
  }
  interface Grant extends Model {
    addOIDCScope(scope: string): void;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    Client: { find(id: string): Promise<unknown> };
    Grant: new (props: {
      accountId: string;
      clientId: string;
    }) => Grant;
    AccessToken: new (
      props: Record<string, unknown>,
    ) => Model;
    RefreshToken: new (
      props: Record<string, unknown>,
    ) => Model;
    on(event: string, listener: (...args: unknown[]) => void): void;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}

// The in-memory adapter and its store (peer-server.ts widens the default 1 000-entry LRU).
declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  export default class MemoryAdapter {
    constructor(model: string, store: unknown);
  }
}
declare module 'oidc-provider/lib/helpers/lru.js' {
  export default class LRU {
    constructor(options: { maxSize: number });
  }
}
