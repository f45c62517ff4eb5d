variable "github_token" {
  type      = string
  sensitive = true
}

# A token the egress proxy injects into requests to api.github.com: the sandbox never sees it.
resource "geminienvironments_credential" "github" {
  credential_id = "github-token"
  type          = "bearer_token"
  token         = var.github_token
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
