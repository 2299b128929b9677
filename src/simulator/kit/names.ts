import { int, pick, type Random } from "./random.js"

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

/** What a marketplace simulator draws for a buyer before it writes the address in its platform's fields. */
export interface DrawnBuyer<P> {
  readonly place: P
  readonly firstName: string
  readonly lastName: string
  /** The place's number prefix and three more digits. */
  readonly phone: string
  readonly company: string | null
  /** House number and street, in the order the place writes them. */
  readonly street: string
  readonly apartment: string | null
}

/**
 * A buyer at one of `places`: the draws are made in this order (place, names, house number, phone,
 * company, apartment), so fixtures built on it stay a pure function of the seed.
 */
export const drawBuyer = <P extends { readonly street: string; readonly phone: string }>(
  random: Random,
  places: ReadonlyArray<P>,
  names: { readonly first: ReadonlyArray<string>; readonly last: ReadonlyArray<string> },
  numberFirst: (place: P) => boolean
): DrawnBuyer<P> => {
  const place = pick(random, places)
  const firstName = pick(random, names.first)
  const lastName = pick(random, names.last)
  const house = int(random, 1, 250)
  const phone = `${place.phone}${int(random, 100, 199)}`
  const company = random() < 0.15 ? "Studio Nord GmbH" : null
  const street = numberFirst(place) ? `${house} ${place.street}` : `${place.street} ${house}`
  const apartment = random() < 0.35 ? `Apt ${int(random, 1, 40)}` : null
  return { place, firstName, lastName, phone, company, street, apartment }
}

/** The letters of a name in ASCII: accents dropped, \u0141/\u0142 as l and \u00d8/\u00f8 as o, anything else left out. */
export const asciiLetters = (value: string): string =>
  value.normalize("NFD").replace(/[\u0300-\u036f]/g, "").replace(/[\u0141\u0142]/g, "l").replace(/[\u00d8\u00f8]/g, "o").replace(
    /[^A-Za-z]/g,
    ""
  )

/** `first.last<1-99>@example.com`, in ASCII and lower case. */
export const buyerEmail = (random: Random, firstName: string, lastName: string): string =>
  `${asciiLetters(firstName)}.${asciiLetters(lastName)}${int(random, 1, 99)}@example.com`.toLowerCase()
