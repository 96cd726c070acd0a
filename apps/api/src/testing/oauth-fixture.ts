import type { FixtureFile } from "@community/domain";
import { contractFixture } from "@community/fixtures/testing";

export const RUNNER = { username: "user_runner", password: "runner-password-1" } as const;
export const CLIMBER = { username: "user_climber", password: "climber-password-1" } as const;
export const REDIRECT_URI = "http://client.test/callback";
export const PUBLIC_CLIENT = { clientId: "test-spa" } as const;
export const CONFIDENTIAL_CLIENT = { clientId: "test-backend", clientSecret: "test-backend-secret-0123" } as const;

/** The contract fixture with passwords for two users and a public and a confidential client. */
export function oauthFixture(): FixtureFile {
  const fixture = contractFixture();
  fixture.users = fixture.users.map((user) =>
    user.id === RUNNER.username
      ? { ...user, password: RUNNER.password }
      : user.id === CLIMBER.username
        ? { ...user, password: CLIMBER.password }
        : user,
  );
  fixture.oauth_clients = [
    { client_id: PUBLIC_CLIENT.clientId, name: "Test SPA", client_secret: null, redirect_uris: [REDIRECT_URI] },
    {
      client_id: CONFIDENTIAL_CLIENT.clientId,
      name: "Test backend",
      client_secret: CONFIDENTIAL_CLIENT.clientSecret,
      redirect_uris: [REDIRECT_URI],
    },
  ];
  return fixture;
}
