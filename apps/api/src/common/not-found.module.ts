import { Module } from "@nestjs/common";
import { NotFoundController } from "./not-found.controller";

/** The 404 route; AppModule imports it after every module that has routes. */
@Module({ controllers: [NotFoundController] })
export class NotFoundModule {}
