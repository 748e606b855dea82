// The shared readers live beside the FAA readers in worker/domain (the worker's feed sync runs them too).
export * from "../../../worker/domain/airspace/formats/source";
