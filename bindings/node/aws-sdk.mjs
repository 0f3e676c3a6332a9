import adapter from './aws-sdk.cjs';
export const { Table, send, command, bodyToSdk } = adapter;
