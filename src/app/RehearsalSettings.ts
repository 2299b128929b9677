import type { AppConfig } from "../config/AppConfig.js"
import type { RehearsalReportSettings } from "../reporting/RehearsalReports.js"

/** Where a rehearsal's report goes and how its money is converted, from the config (as the reconciliation report's). */
export const rehearsalSettingsOf = (config: AppConfig): RehearsalReportSettings => ({
  dir: config.reports.dir,
  formats: config.reports.formats,
  rates: config.reports.exchangeRates ?? null
})
