import { prepareDatabaseTemplate } from "./databaseTemplate.js"

/** Once per run, before any worker starts: the migrated database the tests copy (databaseTemplate.ts). */
export default async function setup() {
  await prepareDatabaseTemplate()
}
