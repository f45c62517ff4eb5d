import pulumi
import pulumi_gemini_environments as genv

config = pulumi.Config()
base = genv.get_environment_output(id=config.require("environmentId"))

pulumi.export("status", base.status)
pulumi.export("fileCount", base.file_count)
