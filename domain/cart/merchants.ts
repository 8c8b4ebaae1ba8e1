// The merchants a cart connect can sign in to, and what each start tells the caller.
export const CART_MERCHANTS = ['meli', 'ifood'] as const;
export type CartMerchant = (typeof CART_MERCHANTS)[number];

/** The page the browser worker opens for the person to sign in. */
export const MERCHANT_LOGIN_URL: Record<CartMerchant, string> = {
  meli: 'https://www.mercadolivre.com.br/jms/mlb/lgz/login',
  ifood: 'https://www.ifood.com.br/entrar',
};

/** iFood's checkout cannot be driven; its connect only links the account (spec: Cart connect). */
export const IFOOD_NOTE =
  'iFood checkout is not supported: the connect links the account for browsing and carts only.';
