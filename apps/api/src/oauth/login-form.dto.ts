import { Transform } from "class-transformer";
import { IsNotEmpty, IsString, MaxLength } from "class-validator";

/** The sign-in form as the login page posts it (application/x-www-form-urlencoded). */
export class LoginFormDto {
  @Transform(({ value }) => (typeof value === "string" ? value.trim() : value))
  @IsString({ message: "is required" })
  @IsNotEmpty({ message: "must not be empty" })
  @MaxLength(128, { message: "must be at most 128 characters" })
  username!: string;

  @IsString({ message: "is required" })
  @IsNotEmpty({ message: "must not be empty" })
  @MaxLength(1024, { message: "must be at most 1024 characters" })
  password!: string;
}
