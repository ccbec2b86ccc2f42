export const ROLES = ['superuser', 'admin', 'staff', 'auditor'] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = [
  'data:import',
  'data:read',
  'datatargets:use',
  'datatargets:manage',
  'access:manage',
  'settings:manage',
  'audit:read',
  'operations:read',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** What each role may do. The README's role table is this map. */
export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  superuser: PERMISSIONS,
  admin: PERMISSIONS,
  staff: ['data:import', 'data:read', 'datatargets:use', 'datatargets:manage', 'operations:read'],
  auditor: ['data:read', 'audit:read', 'operations:read'],
};

/** An integration's token without transferred roles imports and reads data, nothing more. */
export const INTEGRATION_PERMISSIONS: readonly Permission[] = ['data:import', 'data:read', 'datatargets:use'];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function permissionsOf(roles: readonly Role[], integration: boolean): Set<Permission> {
  const out = new Set<Permission>(integration ? INTEGRATION_PERMISSIONS : []);
  for (const role of roles) for (const p of ROLE_PERMISSIONS[role] ?? []) out.add(p);
  return out;
}
