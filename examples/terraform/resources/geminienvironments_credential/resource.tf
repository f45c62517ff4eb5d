# Ephemeral (Terraform 1.10, OpenTofu 1.11 and newer): the token is in no plan and no state.
variable "github_token" {
  type      = string
  sensitive = true
  ephemeral = true
}

# A token the egress proxy injects into requests to api.github.com: the sandbox never sees it.
# token_wo is write-only (Terraform 1.11 or OpenTofu 1.11 and newer): sent to the API, kept in neither
# the plan nor the state. Change token_wo_version to send a new token. Older engines: set `token`
# instead (sensitive, but kept in the state).
resource "geminienvironments_credential" "github" {
  credential_id    = "github-token"
  type             = "bearer_token"
  token_wo         = var.github_token
  token_wo_version = 1
}

resource "geminienvironments_environment" "agent" {
  network = {
    allowlist = [
      { domain = "api.github.com", credential = geminienvironments_credential.github.credential_id },
    ]
  }
}

output "credential_status" {
  value = geminienvironments_credential.github.status
}
