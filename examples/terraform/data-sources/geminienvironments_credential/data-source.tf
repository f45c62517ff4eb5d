# A credential an allowlist entry references: its type and status, never its secret.
data "geminienvironments_credential" "deploy" {
  credential_id = "deploy-token"
}

output "deploy_token_status" {
  value = data.geminienvironments_credential.deploy.status
}
