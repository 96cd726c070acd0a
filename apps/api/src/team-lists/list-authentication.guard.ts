import { type CanActivate, type ExecutionContext, Inject, Injectable } from "@nestjs/common";

/** The guard that authenticates list requests, provided by the module that registers the lists. */
export const LIST_AUTHENTICATION = Symbol("LIST_AUTHENTICATION");

/**
 * Runs the authentication the app gave TeamListsModule.register: the lists read the caller's team
 * from the request (@CurrentTeam) and never depend on how it was authenticated.
 */
@Injectable()
export class ListAuthenticationGuard implements CanActivate {
  constructor(@Inject(LIST_AUTHENTICATION) private readonly authentication: CanActivate) {}

  canActivate(context: ExecutionContext) {
    return this.authentication.canActivate(context);
  }
}
