// Gemini Environments (agent sandboxes) as code, with hooks and network egress policies as validated, reviewable resources.
package geminienvironments
