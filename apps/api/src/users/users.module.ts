import { Module } from "@nestjs/common";
import { UserRepository } from "./user.repository";

/** The users, shared by the resource server (auth) and the authorization server (oauth). */
@Module({ providers: [UserRepository], exports: [UserRepository] })
export class UsersModule {}
