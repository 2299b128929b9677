/** Buyer names the marketplace simulators' fixtures draw from: US and EU buyers, many names not ASCII. */

export const buyerFirstNames: ReadonlyArray<string> = [
  "Olivia",
  "Liam",
  "Emma",
  "Noah",
  "Zoë",
  "José",
  "Łukasz",
  "Chloé",
  "Mia",
  "Lucas",
  "Sofía",
  "Jonas",
  "Amélie",
  "Ethan",
  "Björn",
  "Ava",
  "Mateo",
  "Inès"
]

export const buyerLastNames: ReadonlyArray<string> = [
  "Smith",
  "Johnson",
  "Müller",
  "García",
  "Rossi",
  "Dubois",
  "Nowak",
  "van der Berg",
  "O'Brien",
  "Martínez",
  "Schröder",
  "Brown",
  "Lefèvre",
  "Jansen",
  "Kowalski",
  "Nguyen"
]
