// placeholder replaced by the CLI wiring below
export {}
