#!/usr/bin/env bash
# The sample project's "test suite": the greeting must be spelled right.
if grep -q 'Hello, ' src/greet.ts; then
  echo "check passed: greeting is spelled right"
else
  echo "check failed: greeting is misspelled" >&2
  exit 1
fi
