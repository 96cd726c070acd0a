import { Module } from "@nestjs/common";
import { DocsController } from "./docs.controller";

/** The API documentation: the OpenAPI document and Swagger UI. */
@Module({ controllers: [DocsController] })
export class DocsModule {}
