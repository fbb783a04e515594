"""The root example (../index.ts) in Python: the same components, through the component package."""

import pulumi
import pulumi_openshift_topology as openshift

config = pulumi.Config()
zones = config.get_object("zones") or ["us-east-2a", "us-east-2b", "us-east-2c"]

# Infrastructure ID, region and the RHCOS AMI are read from the cluster.
infra = openshift.InfraNodePool(
    "infra",
    zones=zones,
    replicas=config.get_int("infraReplicas") or 3,
    aws=openshift.AwsMachineOptionsArgs(instance_type=config.get("infraInstanceType") or "m6i.2xlarge"),
    router=openshift.InfraNodePoolRouterArgs(replicas=3),
    registry=True,
    monitoring=openshift.InfraNodePoolMonitoringArgs(config={"prometheusK8s": {"retention": "15d"}}),
)

# Time servers for the infra nodes only, rolled out node by node.
time_server = config.get("timeServer") or "169.254.169.123"
openshift.MachineConfig(
    "99-infra-chrony",
    role=infra.role,
    files=[
        openshift.MachineConfigFileArgs(
            path="/etc/chrony.conf",
            mode="0644",
            contents=openshift.MachineConfigFileContentsArgs(
                text=f"pool {time_server} iburst\ndriftfile /var/lib/chrony/drift\nmakestep 1.0 3\nrtcsync\n",
            ),
        )
    ],
)

openshift.KubeletConfig("infra-kubelet", pool=infra.role, kubelet_config={"maxPods": 250})

# WMCO installed through OLM with a generated private key, and the newest Windows Server 2022 AMI.
windows = openshift.WindowsNodePool(
    "windows",
    zones=config.get_object("windowsZones") or [zones[0]],
    replicas=config.get_int("windowsReplicas") or 1,
    windows_server="2022",
    aws=openshift.AwsMachineOptionsArgs(instance_type=config.get("windowsInstanceType") or "m5a.large"),
)

pulumi.export("infraMachineSets", infra.machine_set_names)
pulumi.export("infraPlacement", infra.placement)
pulumi.export("windowsMachineSets", windows.machine_set_names)
pulumi.export("windowsRuntimeClass", windows.runtime_class_name)
pulumi.export("windowsKeyFingerprint", windows.private_key_fingerprint)
