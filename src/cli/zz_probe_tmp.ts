import { Command } from "@effect/cli"
import { checkCommand } from "./check.js"
import { mappingsCommand } from "./mappings.js"
type R1 = typeof mappingsCommand extends Command.Command<any, infer R, any, any> ? R : "x"
type R2 = typeof checkCommand extends Command.Command<any, infer R, any, any> ? R : "x"
export const r1: [R1] extends [never] ? true : R1 = true
export const r2: [R2] extends [never] ? true : R2 = true
