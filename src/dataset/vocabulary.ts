/**
 * The words and figures the seed dataset is made of. Amounts are yearly, in US dollars; the
 * generator converts them with the fixed rates below (a seed needs plausible, not live, rates).
 */

export const FIRST_NAMES = [
  'Olivia', 'Liam', 'Emma', 'Noah', 'Amelia', 'Oliver', 'Sophia', 'Elijah', 'Charlotte', 'James',
  'Mia', 'Lucas', 'Zoë', 'Mateo', 'Chloé', 'Léa', 'Hugo', 'Inès', 'Jules', 'Camille',
  'Lukas', 'Hannah', 'Jonas', 'Lena', 'Felix', 'Anna', 'José', 'Lucía', 'Javier', 'Martina',
  'Daan', 'Sanne', 'Aoife', 'Seán', 'Priya', 'Arjun', 'Mei', 'Wei', 'Aiko', 'Kenji',
  'Grace', 'Ethan', 'Isla', 'Jack', 'Ava', 'Harper', 'Benjamin', 'Nora', 'Samuel', 'Maya',
] as const;

export const LAST_NAMES = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Martínez', 'López',
  'Wilson', 'Anderson', 'Taylor', 'Thomas', 'Moore', 'Martin', 'Lee', 'Thompson', 'White', 'Harris',
  'Dubois', 'Lefèvre', 'Moreau', 'Laurent', 'Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Becker',
  'Fernández', 'González', 'Rodríguez', 'de Vries', 'Jansen', 'Bakker', "O'Brien", 'Murphy', 'Kelly', 'Walsh',
  'Patel', 'Singh', 'Tan', 'Lim', 'Nguyen', 'Chen', 'Wong', 'Sato', 'Clarke', 'Evans',
] as const;

export type RegionName = 'North America' | 'EMEA' | 'APAC';

export interface Country {
  code: string;
  currency: string;
  region: RegionName;
  /** Share of the sales force based there. */
  weight: number;
}

export const COUNTRIES: readonly Country[] = [
  { code: 'US', currency: 'USD', region: 'North America', weight: 40 },
  { code: 'CA', currency: 'CAD', region: 'North America', weight: 5 },
  { code: 'GB', currency: 'GBP', region: 'EMEA', weight: 12 },
  { code: 'FR', currency: 'EUR', region: 'EMEA', weight: 10 },
  { code: 'DE', currency: 'EUR', region: 'EMEA', weight: 10 },
  { code: 'ES', currency: 'EUR', region: 'EMEA', weight: 4 },
  { code: 'NL', currency: 'EUR', region: 'EMEA', weight: 4 },
  { code: 'IE', currency: 'EUR', region: 'EMEA', weight: 3 },
  { code: 'AU', currency: 'AUD', region: 'APAC', weight: 8 },
  { code: 'SG', currency: 'SGD', region: 'APAC', weight: 4 },
];

export const REGIONS: readonly RegionName[] = ['North America', 'EMEA', 'APAC'];

/** Regional calculation currency, used for the users not calculated in their own currency. */
export const REGION_CALCULATION_CURRENCY: Readonly<Record<RegionName, string>> = {
  'North America': 'USD',
  EMEA: 'EUR',
  APAC: 'USD',
};

/** US dollars per unit of each currency. */
export const USD_PER_UNIT: Readonly<Record<string, number>> = {
  USD: 1,
  EUR: 1.08,
  GBP: 1.27,
  CAD: 0.74,
  AUD: 0.66,
  SGD: 0.74,
};

export const SEGMENTS = ['SMB', 'Mid-Market', 'Enterprise', 'Strategic'] as const;

export interface RoleProfile {
  role: string;
  /** Name of its compensation plan, followed by the year in a statement line. */
  plan: string;
  /** Variable pay at 100% of target, per year (USD). */
  variablePay: number;
  /** Quota per year (USD), or null when the role is paid without a quota. */
  quota: number | null;
  /** Whether its lines carry a new_arr value. */
  booksArr: boolean;
  /** Whether it owns deals in the deals table. */
  ownsDeals: boolean;
}

const role = (
  name: string,
  plan: string,
  variablePay: number,
  quota: number | null,
  booksArr: boolean,
  ownsDeals: boolean,
): RoleProfile => ({ role: name, plan, variablePay, quota, booksArr, ownsDeals });

/** The roles of the levels above individual contributors, from the top down. */
export const LEADER_ROLES: readonly RoleProfile[] = [
  role('VP of Sales', 'Sales Leadership Plan', 150_000, 12_000_000, true, false),
  role('Regional Sales Director', 'Sales Leadership Plan', 90_000, 4_000_000, true, false),
  role('Sales Manager', 'Sales Manager Plan', 60_000, 1_500_000, true, true),
];

/** Individual contributors and how common each role is among them. */
export const CONTRIBUTOR_ROLES: readonly (readonly [RoleProfile, number])[] = [
  [role('Account Executive', 'AE Commission Plan', 60_000, 800_000, true, true), 45],
  [role('Senior Account Executive', 'AE Commission Plan', 80_000, 1_200_000, true, true), 15],
  [role('Sales Development Representative', 'SDR Bonus Plan', 20_000, 600_000, false, false), 20],
  [role('Customer Success Manager', 'CSM Retention Plan', 25_000, 1_000_000, false, false), 10],
  [role('Solutions Engineer', 'SE Bonus Plan', 30_000, null, false, false), 10],
];

export const COMPANY_WORDS = [
  'Northwind', 'Blue Harbor', 'Acme', 'Globex', 'Initech', 'Umbrella', 'Stark', 'Wayne', 'Hooli', 'Vandelay',
  'Soylent', 'Tyrell', 'Cyberdyne', 'Wonka', 'Gringotts', 'Oceanic', 'Pied Piper', 'Massive Dynamic', 'Aperture',
  'Black Mesa', 'Monarch', 'Dunder', 'Sterling', 'Nakatomi', 'Virtucon', 'Zorg', 'Contoso', 'Fabrikam',
] as const;

export const COMPANY_KINDS = [
  'Logistics', 'Health', 'Bank', 'Retail', 'Energy', 'Foods', 'Media', 'Insurance', 'Labs', 'Systems',
] as const;

export const DEAL_KINDS = ['New business', 'Expansion', 'Renewal', 'Upsell', 'Pilot'] as const;

/** Products and their typical deal size relative to the platform. */
export const PRODUCTS: readonly (readonly [string, number])[] = [
  ['Platform', 1],
  ['Analytics Add-on', 0.4],
  ['Data Connectors', 0.25],
  ['API Access', 0.3],
  ['Premium Support', 0.2],
  ['Implementation Services', 0.5],
];

export const DEAL_STAGES: readonly (readonly [string, number])[] = [
  ['Closed Won', 55],
  ['Closed Lost', 25],
  ['Negotiation', 10],
  ['Proposal', 10],
];

/** The months the seed covers: 36 calendar months, April 2023 to March 2026 (month indexes). */
export const SEED_PERIOD = { first: 2023 * 12 + 3, last: 2023 * 12 + 3 + 35 } as const;
