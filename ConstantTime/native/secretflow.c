/* Valgrind memcheck's client requests, for ConstantTime's --secret-flow mode (SecretFlow.cs).
 * Memcheck tracks, bit by bit, which values derive from memory marked undefined, and reports a
 * conditional jump or a memory address that depends on one. Marking the secrets (keys, plaintext)
 * undefined turns that into a check that no branch and no memory index depends on a secret: the
 * approach of ctgrind and BoringSSL's constant-time validation. Outside valgrind each request is a
 * few no-op instructions. */
#include <stddef.h>
#include <valgrind/memcheck.h>

void secretflow_secret(void *address, size_t length) { VALGRIND_MAKE_MEM_UNDEFINED(address, length); }

void secretflow_public(void *address, size_t length) { VALGRIND_MAKE_MEM_DEFINED(address, length); }

int secretflow_on_valgrind(void) { return RUNNING_ON_VALGRIND; }
