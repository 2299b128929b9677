/** One Shopify store, its POD key from $POD_CLIENT_KEY; `extra` adds sections. */
export const minimal = (extra = "", clientKey = "${POD_CLIENT_KEY}") => `
pod:
  baseUrl: https://pod.example.com/integration-handler
  clientKey: ${clientKey}
  clientSecret: s3cret-value
stores:
  - key: acme-shopify
    platform: shopify
    podStoreId: "42"
    shopify: { shop: acme.myshopify.com, accessToken: shpat_abc, webhookSecret: whsec }
    mappings: ./config/mappings/acme-shopify.csv
${extra}`
