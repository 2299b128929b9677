import { describe, expect, it } from "vitest"
import { sampleAddress, sampleDraftData } from "../../src/simulator/pod/index.js"
import { usePodSimulator } from "./podHarness.js"

const pod = usePodSimulator({ rateLimit: false })

/** Asserts the spec's 400 body and returns the fields it names. */
const expectInvalid = (reply: { status: number; body: any }, field: string): void => {
  expect(reply.status).toBe(400)
  expect(reply.body).toMatchObject({ code: "INVALID_ARGUMENT", message: expect.any(String) })
  expect(Object.keys(reply.body).sort()).toEqual(["code", "details", "message"])
  for (const detail of reply.body.details) expect(Object.keys(detail).sort()).toEqual(["field", "issue"])
  expect(reply.body.details.map((d: { field: string }) => d.field)).toContain(field)
}

const draftWith = async (change: (data: Record<string, any>) => void) => {
  const [variantId] = await pod.inStockVariantIds(1)
  const data: Record<string, any> = structuredClone(sampleDraftData({ variantId: variantId as string, referenceId: "v:1" }))
  change(data)
  return pod.api("POST", "/api/v3/orders/draft", { data })
}

const line = (data: Record<string, any>): Record<string, any> => data["line_items"][0]

describe("draft creation rejects bad bodies with the spec's 400 naming the field", () => {
  it("accepts the sample body (the baseline every case below breaks)", async () => {
    expect((await draftWith(() => undefined)).status).toBe(200)
  })

  it("requires data", async () => {
    expectInvalid(await pod.api("POST", "/api/v3/orders/draft", { reference_id: "x" }), "data")
  })

  it("requires a known marketplace platform", async () => {
    expectInvalid(await draftWith((d) => delete d["platform"]), "data.platform")
    expectInvalid(await draftWith((d) => (d["platform"] = "MARKETPLACE_PLATFORM_MYSPACE")), "data.platform")
  })

  it("accepts each of the 15 marketplace platforms", async () => {
    const catalog = (await pod.api("GET", "/api/v3/catalog?paging.limit=1")).status
    expect(catalog).toBe(200)
    for (
      const name of [
        "EBAY",
        "AMAZON",
        "SHOPIFY",
        "WOOCOMMERCE",
        "ETSY",
        "SHOPBASE",
        "GEARMENT",
        "ORDERDESK",
        "TIKTOKSHOP",
        "POSHMARK",
        "PRESTASHOP",
        "INKGO",
        "WISH",
        "BIGCOMMERCE",
        "CUSTOMILY"
      ]
    ) {
      expect((await draftWith((d) => (d["platform"] = `MARKETPLACE_PLATFORM_${name}`))).status).toBe(200)
    }
  })

  it("requires store_id", async () => {
    expectInvalid(await draftWith((d) => delete d["store_id"]), "data.store_id")
  })

  it("requires the shipping address", async () => {
    expectInvalid(await draftWith((d) => delete d["address"]), "data.address")
  })

  it.each([
    ["first_name", ""],
    ["first_name", "A".repeat(51)],
    ["last_name", "L".repeat(36)],
    ["company", "C".repeat(51)],
    ["street_1", ""],
    ["street_1", "S".repeat(51)],
    ["street_2", "S".repeat(36)],
    ["city", "C".repeat(31)],
    ["city", undefined],
    ["state_code", "US-CA"],
    ["state_name", "N".repeat(41)],
    ["zip_code", "1".repeat(13)],
    ["zip_code", undefined],
    ["country_code", "USA"],
    ["country_code", undefined],
    ["phone_no", "call me maybe"],
    ["phone_no", "1".repeat(51)]
  ])("checks address.%s (value %j)", async (field, value) => {
    const reply = await draftWith((d) => {
      if (value === undefined) delete d["address"][field]
      else d["address"][field] = value
    })
    expectInvalid(reply, `data.address.${field}`)
  })

  it("accepts every address field at its upper limit", async () => {
    const reply = await draftWith((d) => {
      d["address"] = {
        ...sampleAddress,
        first_name: "F".repeat(50),
        last_name: "L".repeat(35),
        company: "C".repeat(50),
        street_1: "S".repeat(50),
        street_2: "T".repeat(35),
        city: "C".repeat(30),
        state_code: "CAL",
        state_name: "N".repeat(40),
        zip_code: "1".repeat(12),
        phone_no: "+1 213 555 0100 x12"
      }
    })
    expect(reply.status).toBe(200)
  })

  it("requires 1 to 1000 line items", async () => {
    expectInvalid(await draftWith((d) => (d["line_items"] = [])), "data.line_items")
    expectInvalid(await draftWith((d) => (d["line_items"] = Array.from({ length: 1001 }, () => line(d)))), "data.line_items")
  })

  it("accepts exactly 1000 line items", async () => {
    expect((await draftWith((d) => (d["line_items"] = Array.from({ length: 1000 }, () => line(d))))).status).toBe(200)
  })

  it("requires variant_id xor legacy_id", async () => {
    expectInvalid(await draftWith((d) => (line(d)["legacy_id"] = 10_011)), "data.line_items[0].variant_id")
    expectInvalid(await draftWith((d) => delete line(d)["variant_id"]), "data.line_items[0].variant_id")
  })

  it("takes legacy_id as an integer or a string, and rejects unknown ones", async () => {
    const variant = (await pod.api("GET", "/api/v3/catalog/variants?paging.limit=1")).body.data[0]
    for (const legacy of [variant.legacy_variant_id, String(variant.legacy_variant_id)]) {
      expect(
        (await draftWith((d) => {
          delete line(d)["variant_id"]
          line(d)["legacy_id"] = legacy
        })).status
      ).toBe(200)
    }
    expectInvalid(
      await draftWith((d) => {
        delete line(d)["variant_id"]
        line(d)["legacy_id"] = 99
      }),
      "data.line_items[0].legacy_id"
    )
  })

  it("rejects an unknown variant_id", async () => {
    expectInvalid(await draftWith((d) => (line(d)["variant_id"] = "no-such-variant")), "data.line_items[0].variant_id")
  })

  it.each([0, 1001, 1.5, "2"])("requires quantity to be an integer 1..1000 (%j)", async (quantity) => {
    expectInvalid(await draftWith((d) => (line(d)["quantity"] = quantity)), "data.line_items[0].quantity")
  })

  it("requires at least one printing option", async () => {
    expectInvalid(await draftWith((d) => (line(d)["printing_options"] = [])), "data.line_items[0].printing_options")
  })

  it("requires a front or back print", async () => {
    const sleeveOnly = [{ location_code: "PRINT_LOCATION_CODE_LEFT_SLEEVE", url: "https://designs.example.com/s.png" }]
    expectInvalid(await draftWith((d) => (line(d)["printing_options"] = sleeveOnly)), "data.line_items[0].printing_options")
  })

  it("requires print location enum names and design URLs", async () => {
    expectInvalid(
      await draftWith((d) => (line(d)["printing_options"][0]["location_code"] = "front")),
      "data.line_items[0].printing_options[0].location_code"
    )
    expectInvalid(
      await draftWith((d) => (line(d)["printing_options"][0]["url"] = "not a url")),
      "data.line_items[0].printing_options[0].url"
    )
  })

  it("limits the gift message to 1000 characters", async () => {
    expect((await draftWith((d) => (d["gift_message_body"] = "g".repeat(1000)))).status).toBe(200)
    expectInvalid(await draftWith((d) => (d["gift_message_body"] = "g".repeat(1001))), "data.gift_message_body")
  })

  it("requires a known shipping method", async () => {
    expectInvalid(await draftWith((d) => (d["shipping_method"] = "METHOD_TELEPORT")), "data.shipping_method")
  })

  it("checks Money in the billing option (nanos sign agrees with units)", async () => {
    const reply = await draftWith((
      d
    ) => (d["billing_option"] = { ioss_number: "IM1234567890", ioss_value: { currency_code: "EUR", units: "5", nanos: -1 } }))
    expectInvalid(reply, "data.billing_option.ioss_value")
  })

  it("requires shipping label URLs on a labeled draft", async () => {
    const [variantId] = await pod.inStockVariantIds(1)
    const { address: _address, ...rest } = sampleDraftData({ variantId: variantId as string })
    expectInvalid(await pod.api("POST", "/api/v3/orders/draft/labeled", { data: rest }), "data.shipping_label_urls")
    const ok = await pod.api("POST", "/api/v3/orders/draft/labeled", {
      data: { ...rest, shipping_label_urls: ["https://labels.example.com/1.pdf"] }
    })
    expect(ok.status).toBe(200)
    expect(ok.body.data).toMatchObject({ is_label_attached: true, created_method: "VENDOR_CREATED_METHOD_LABEL" })
  })

  it("answers a body that is not JSON with 400", async () => {
    const reply = await pod.api("POST", "/api/v3/orders/draft", "{not json", {
      "X-Gearment-Client-Key": "sim-client-key",
      "X-Gearment-Client-Secret": "sim-client-secret",
      "content-type": "application/json"
    })
    expectInvalid(reply, "body")
  })
})

describe("line item updates and price quotes validate too", () => {
  it("names order_id, line_item_id and quantity in PATCH /orders/draft/line-items", async () => {
    const draft = await pod.createDraft({ referenceId: "p:1" })
    const item = draft.line_items[0]
    const change = (over: Record<string, unknown>) => ({
      order_id: draft.order_id,
      line_items: [{
        line_item_id: item.line_item_id,
        variant_id: item.variant.variant_id,
        quantity: 3,
        printing_options: [{ location_code: "PRINT_LOCATION_CODE_BACK", url: "https://d.example.com/b.png" }],
        ...over
      }]
    })
    expectInvalid(await pod.api("PATCH", "/api/v3/orders/draft/line-items", { line_items: change({}).line_items }), "order_id")
    expectInvalid(await pod.api("PATCH", "/api/v3/orders/draft/line-items", change({ line_item_id: "nope" })), "line_items[0].line_item_id")
    expectInvalid(await pod.api("PATCH", "/api/v3/orders/draft/line-items", change({ quantity: 0 })), "line_items[0].quantity")
    expect((await pod.api("PATCH", "/api/v3/orders/draft/line-items", { ...change({}), order_id: "missing" })).status).toBe(404)
    const ok = await pod.api("PATCH", "/api/v3/orders/draft/line-items", change({}))
    expect(ok.body).toMatchObject({ status: "success", data: { order_id: draft.order_id } })
    const after = (await pod.api("GET", `/api/v3/orders/draft/${draft.order_id}`)).body.data
    expect(after.line_items[0]).toMatchObject({ quantity: 3, printing_options: [{ print_location_code: "PRINT_LOCATION_CODE_BACK" }] })
  })

  it("takes a line update as published: only line_item_id is needed, fields are closed, a checked-out draft is refused", async () => {
    const draft = await pod.createDraft({ referenceId: "p:partial" })
    const item = draft.line_items[0]
    const [other] = (await pod.inStockVariantIds(5)).filter((id) => id !== item.variant.variant_id)
    const patch = (line: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      pod.api("PATCH", "/api/v3/orders/draft/line-items", {
        order_id: draft.order_id,
        line_items: [{ line_item_id: item.line_item_id, ...line }],
        ...extra
      })
    // A new variant alone: quantity and designs stay the line's.
    expect((await patch({ variant_id: other })).status).toBe(200)
    const after = (await pod.api("GET", `/api/v3/orders/draft/${draft.order_id}`)).body.data.line_items[0]
    expect(after).toMatchObject({ variant: { variant_id: other }, quantity: item.quantity })
    expect(after.printing_options).toEqual(item.printing_options)
    expect((await patch({ quantity: 4 })).status).toBe(200)
    expectInvalid(await patch({ variant_id: other, legacy_id: 10043 }), "line_items[0].variant_id")
    expectInvalid(await patch({ shipping_method: "METHOD_STANDARD" }), "line_items[0].shipping_method")
    expectInvalid(await patch({ quantity: 2 }, { address: { street_1: "1 Other Street" } }), "address")
    await pod.admin("POST", `/__sim/drafts/${draft.order_id}/checkout`, { paid: true })
    const refused = await patch({ quantity: 1 })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ code: "FAILED_PRECONDITION" })
  })

  it("limits quote gift messages to 300 characters and requires the shipping destination", async () => {
    const [variantId] = await pod.inStockVariantIds(1)
    const base = {
      order_platform: "etsy",
      shipping: { address: { country_code: "US", state_code: "NY", method: "ground" } },
      line_items: [{ variant_id: variantId, quantity: 1, print_locations: ["front"] }]
    }
    expectInvalid(
      await pod.api("POST", "/api/v3/orders/price", { ...base, gift_messages: [{ gift_message_id: "g", content: "x".repeat(301) }] }),
      "gift_messages[0].content"
    )
    expectInvalid(await pod.api("POST", "/api/v3/orders/price", { ...base, shipping: undefined }), "shipping")
    expectInvalid(await pod.api("POST", "/api/v3/orders/price", { ...base, order_platform: "MARKETPLACE_PLATFORM_ETSY" }), "order_platform")
    expect(
      (await pod.api("POST", "/api/v3/orders/price", { ...base, gift_messages: [{ gift_message_id: "g", content: "x".repeat(300) }] }))
        .status
    ).toBe(200)
  })
})
