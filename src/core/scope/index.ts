/** Connection scopes (read-only, trust ceiling, namespace): the policy table and its one enforcement point. */
export { SCOPE_POLICY, CAPPED_CONFLICT_POLICIES, methodsWith, type Access, type ApiMethod, type MethodPolicy, type NamespaceRule } from './policy.ts';
export { checkScope, narrowScope, scopeMemory, scopedCall, type ConnectionScope } from './enforce.ts';
export { isNamespaceTag, namespaceTag } from './namespace.ts';
