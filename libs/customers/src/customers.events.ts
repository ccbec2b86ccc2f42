export const CUSTOMERS_IMPORTED = 'CustomersImported';
