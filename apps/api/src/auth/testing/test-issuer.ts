import { createServer, type Server } from "node:http";
import { type JWK, loadJose } from "../jose";

/**
 * An independent identity provider for tests: serves OpenID discovery metadata and a JWKS on a
 * loopback port, and signs access tokens with jose. Keys can be added and removed to rotate.
 */
export class TestIssuer {
  private keys: JWK[] = [];
  jwksRequests = 0;

  private constructor(
    private readonly server: Server,
    readonly issuer: string,
  ) {}

  static async start(): Promise<TestIssuer> {
    let self: TestIssuer | undefined;
    const server = createServer((req, res) => {
      if (self === undefined) return res.writeHead(503).end();
      const json = (body: unknown) =>
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (req.url === "/.well-known/openid-configuration") {
        return json({ issuer: self.issuer, jwks_uri: `${self.issuer}/keys`, token_endpoint: `${self.issuer}/token` });
      }
      if (req.url === "/keys") {
        self.jwksRequests++;
        return json({ keys: self.keys.map(({ d: _d, ...publicJwk }) => publicJwk) });
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    self = new TestIssuer(server, `http://127.0.0.1:${port}`);
    return self;
  }

  /** Generates a key, publishes it in the JWKS and returns its kid. */
  async addKey(kid: string, alg: "ES256" | "RS256" = "ES256"): Promise<string> {
    const jose = await loadJose();
    const { privateKey } = await jose.generateKeyPair(alg, { extractable: true });
    this.keys.push({ ...(await jose.exportJWK(privateKey)), kid, alg });
    return kid;
  }

  removeKey(kid: string): void {
    this.keys = this.keys.filter((key) => key.kid !== kid);
  }

  /** A signed token; `kid` must be one of the keys (published or removed before signing). */
  async sign(kid: string, payload: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
    const jose = await loadJose();
    const jwk = this.keys.find((key) => key.kid === kid);
    if (jwk === undefined) throw new Error(`no key ${kid}`);
    const alg = jwk.alg ?? "ES256";
    return new jose.SignJWT(payload)
      .setProtectedHeader({ alg, typ: "at+jwt", kid, ...header })
      .sign(await jose.importJWK(jwk, alg));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
