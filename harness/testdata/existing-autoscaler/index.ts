import { ClusterAutoscaler } from "../../../index";

new ClusterAutoscaler("autoscaler", { spec: { balanceSimilarNodeGroups: true } });
