/** What the auth middleware leaves for the routes behind it. */
export interface MerchantState {
  merchantId: number;
}
