import { Module } from "@nestjs/common";
import { OAuthKeysRepository } from "./oauth-keys.repository";

/**
 * The built-in authorization server's keys, on their own so that the resource server (auth) can
 * import them without the authorization server, which needs nothing of auth.
 */
@Module({ providers: [OAuthKeysRepository], exports: [OAuthKeysRepository] })
export class OAuthKeysModule {}
